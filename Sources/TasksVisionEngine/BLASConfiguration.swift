import Foundation

/// Which OpenBLAS kernels run, and how to get good ones.
///
/// OpenBLAS picks its kernels from the CPU model when it loads. A CPU newer than
/// the library (seen here: Debian's 0.3.21 on a family 6 model 207 Xeon) falls
/// back to the SSE3 "Prescott" kernels, four times slower than the AVX-512 ones
/// it supports. The choice can only be made before the library initializes,
/// through `OPENBLAS_CORETYPE`, so executables re-launch themselves once with it
/// set (`relaunchWithBetterBLASKernelsIfNeeded`); library users can set it too.
public enum BLASConfiguration {
    /// The kernel set OpenBLAS chose ("SkylakeX", "Haswell", "Prescott", ...).
    public static var coreName: String {
        PlatformBLAS.name
    }

    /// Whether OpenBLAS's `saxpy` computes each `y + a * x` as one fused multiply-add (as its
    /// AVX-512 kernels do at every length and stride; its Haswell kernels do not on short
    /// vectors), so that depthwise layers can run through it with XNNPACK's rounding. Probed once
    /// on vectors of every length up to 70 and a long one, contiguous and strided.
    public static let axpyIsFused: Bool = {
        var state: UInt32 = 12345
        func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) * 6 - 3
        }
        for n in Array(1...70) + [1000] {
            for inc in [1, 2] {
                let x = (0..<(n * inc)).map { _ in next() }
                let y = (0..<n).map { _ in next() }
                let a = next()
                var out = y
                out.withUnsafeMutableBufferPointer {
                    if let y = $0.baseAddress { PlatformBLAS.saxpy(count: n, alpha: a, x: x, incX: inc, y: y, incY: 1) }
                }
                for i in 0..<n where out[i] != y[i].addingProduct(a, x[i * inc]) { return false }
            }
        }
        return true
    }()

    /// Kernel sets that mean OpenBLAS did not recognize a modern x86 CPU.
    static let genericCores: Set<String> = ["Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Banias",
                                            "Northwood", "Katmai", "Coppermine"]
    /// Kernel sets OpenBLAS chooses that the engine replaces as well: Cooperlake, its own choice on a Zen 4, builds on
    /// SkylakeX's SGEMM kernels, yet there the portable set's products left XNNPACK's chains on pose_landmark_full (up
    /// to 6e5 ulp), while SkylakeX on the same CPU gave XNNPACK's bits.
    static let replacedCores: Set<String> = ["Cooperlake"]

    /// The OpenBLAS core type this CPU supports, from its feature flags, when better than what OpenBLAS chose.
    public static func preferredCoreType() -> String? {
        #if os(Linux) && arch(x86_64)
        guard genericCores.contains(coreName) || replacedCores.contains(coreName),
              let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return nil }
        let flags = Set(flagsLine.split(separator: " ").map(String.init))
        if ["avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd"].allSatisfy(flags.contains) { return "SkylakeX" }
        if ["avx2", "fma"].allSatisfy(flags.contains) { return "Haswell" }
        #endif
        return nil
    }

    /// Re-executes the current program with `OPENBLAS_CORETYPE` set when OpenBLAS
    /// fell back to generic kernels on a CPU that has better ones. Does nothing when
    /// the variable is already set, so it happens at most once.
    public static func relaunchWithBetterBLASKernelsIfNeeded() {
        #if os(Linux)
        guard ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] == nil, let core = preferredCoreType() else {
            return
        }
        setenv("OPENBLAS_CORETYPE", core, 1)
        // The arguments' own bytes (CommandLine.arguments would replace a file name's bytes that are not UTF-8).
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // execv only returns on failure: carry on with the kernels we have.
        #endif
    }

    /// Runs OpenBLAS on the calling thread only and ends its idle worker threads. The engine
    /// splits work over threads itself (which keeps results independent of the thread count),
    /// and OpenBLAS's workers, started when the library loads, poll with `sched_yield` for some
    /// 2^28 cycles (about 0.1 s) before they sleep: on a two-core machine one of them took the
    /// processor of an interpreter's helper thread, and the first inferences of a process ran
    /// at one-thread speed. `blas_thread_shutdown_` is looked up, not linked: builds of OpenBLAS
    /// without its thread server lack it. A later multi-threaded OpenBLAS call restarts them.
    static func runSingleThreaded() {
        PlatformBLAS.setSingleThreaded()
        #if os(Linux)
        typealias Shutdown = @convention(c) () -> Int32
        // A nil handle is RTLD_DEFAULT: every loaded library.
        if let symbol = dlsym(nil, "blas_thread_shutdown_") {
            _ = unsafeBitCast(symbol, to: Shutdown.self)()
        }
        #endif
    }
}
