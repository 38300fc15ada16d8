import Foundation

/// What the processor can execute, read from the processor's own report: `/proc/cpuinfo` flags
/// on Linux, `sysctl` on Apple platforms. The flags there already account for the operating
/// system (AVX-512 appears only where the kernel saves its registers), so no instruction the
/// CPU or the OS lacks is ever chosen.
public struct CPUFeatures: Sendable, Equatable {
    /// Feature names as Linux spells them (`avx2`, `fma`, `avx512f`, `asimd`, ...).
    public let flags: Set<String>
    /// The processor's marketing name, for notes and benchmark output.
    public let modelName: String
    /// `vendor_id` of x86 processors (`AuthenticAMD`, `GenuineIntel`); empty elsewhere.
    public let vendor: String
    /// `cpu family` of x86 processors (25 for AMD Zen 3 and Zen 4, 6 for Intel's cores); 0 elsewhere.
    public let family: Int
    /// `model` of x86 processors (1 for a Zen 1 EPYC, 17 for a Zen 4 EPYC); 0 elsewhere.
    public let model: Int
    /// `CPU implementer` and `CPU part` of an arm64 Linux processor's first core (0x41 and 0xd0c: Arm Neoverse N1);
    /// 0 elsewhere.
    public let armImplementer: Int
    public let armPart: Int

    public init(flags: Set<String>, modelName: String = "", vendor: String = "", family: Int = 0, model: Int = 0,
                armImplementer: Int = 0, armPart: Int = 0) {
        self.flags = flags
        self.modelName = modelName
        self.vendor = vendor
        self.family = family
        self.model = model
        self.armImplementer = armImplementer
        self.armPart = armPart
    }

    /// Whether XNNPACK's arm64 Linux build gives this core its one-row GEMM of two chains (even and odd k), by its
    /// `gemm-config.c`: Arm's Cortex-A35, A53, A55, A57, A72, A73, A75, A76, A77 and Neoverse N1 (its `1x8` kernels
    /// for the Cortex-A53 and A75). Its default cores (Neoverse V1, V2, N2, Cortex-X1 and later) keep one chain.
    public var oneRowGEMMSumsInPairs: Bool {
        armImplementer == 0x41
            && [0xd03, 0xd04, 0xd05, 0xd07, 0xd08, 0xd09, 0xd0a, 0xd0b, 0xd0c, 0xd0d].contains(armPart)
    }

    /// Whether XNNPACK's x86 build gives this core its `s4` GEMMs (`4x16s4`, `1x16s4`, their IGEMMs), by its
    /// `gemm-config.c`: the first Zen (cpuinfo's `zen`: AMD family 23, models 00h-1Fh, Naples to Picasso), on the
    /// AVX2 path. Those sum each group of four k of column n from k = n mod 4, wrapping round. Hygon's Dhyana is
    /// named there too, but cpuinfo never decodes it (it looks for family 0), so it gets the default kernels.
    public var gemmSumsRotatedQuads: Bool { vendor == "AuthenticAMD" && family == 23 && model < 0x20 && hasAVX2FMA }

    /// The features of the processor this runs on, probed once.
    ///
    /// `TASKSVISION_CPUINFO` names a file in `/proc/cpuinfo`'s format to take the processor's identity from
    /// (vendor, family, model, arm part), so that this machine behaves as that one would, e.g. to check the kernel
    /// choices of another CPU against TFLite emulated as that CPU. Only the flags the real processor also has are
    /// kept, so no instruction it lacks ever runs.
    public static let current: CPUFeatures = {
        let real = probe()
        guard let path = ProcessInfo.processInfo.environment[identityVariable], !path.isEmpty,
              let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return real }
        return parse(cpuinfo: text).running(on: real)
    }()

    /// The environment variable naming the file of another processor's identity (see `current`).
    public static let identityVariable = "TASKSVISION_CPUINFO"

    /// This processor's identity with only the flags `real` has too: what an engine on `real` may behave as.
    public func running(on real: CPUFeatures) -> CPUFeatures {
        CPUFeatures(flags: flags.intersection(real.flags), modelName: modelName, vendor: vendor, family: family,
                    model: model, armImplementer: armImplementer, armPart: armPart)
    }

    /// AVX2 with FMA3 (Haswell, Zen and later).
    public var hasAVX2FMA: Bool { flags.contains("avx2") && flags.contains("fma") }
    /// The AVX-512 subsets XNNPACK's `avx512f` and our `skylake-avx512` build assume.
    public var hasAVX512: Bool {
        hasAVX2FMA && ["avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd"].allSatisfy(flags.contains)
    }
    /// AVX-512 with VNNI (`vpdpbusd`: Cascade Lake, Ice Lake, Zen 4 and later), for the int8 kernels.
    public var hasAVX512VNNI: Bool { hasAVX512 && flags.contains("avx512_vnni") }
    /// Whether the processor runs each 512-bit vector instruction as two 256-bit halves, so 256-bit tiles
    /// multiply-add as many lanes per cycle as 512-bit ones: AMD Zen 4 (family 25 with AVX-512; Zen 3, the same
    /// family, has no AVX-512, and Zen 5, family 26, has whole 512-bit units). A choice of speed only.
    public var halvesWideVectors: Bool { vendor == "AuthenticAMD" && family == 25 && hasAVX512 }
    /// Advanced SIMD with fused multiply-add (every arm64 processor).
    public var hasNEON: Bool { flags.contains("asimd") || flags.contains("neon") }

    static func probe() -> CPUFeatures {
        #if os(Linux)
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
            return CPUFeatures(flags: baselineFlags)
        }
        return parse(cpuinfo: info)
        #elseif canImport(Darwin)
        return probeSysctl()
        #else
        return CPUFeatures(flags: baselineFlags)
        #endif
    }

    /// What every processor of this architecture has, when nothing can be read.
    static var baselineFlags: Set<String> {
        #if arch(arm64)
        return ["asimd"]
        #else
        return []
        #endif
    }

    /// Features from the text of `/proc/cpuinfo` (the first processor's `flags` on x86,
    /// `Features` on arm64).
    public static func parse(cpuinfo: String) -> CPUFeatures {
        var flags = Set<String>(), model = "", vendor = "", family: Int?, number: Int?, implementer: Int?, part: Int?
        for line in cpuinfo.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...]
            if (key == "flags" || key == "Features") && flags.isEmpty {
                flags = Set(value.split(separator: " ").map(String.init))
            } else if model.isEmpty && (key == "model name" || key == "Model") {
                model = value.trimmingCharacters(in: .whitespaces)
            } else if vendor.isEmpty && key == "vendor_id" {
                vendor = value.trimmingCharacters(in: .whitespaces)
            } else if family == nil && key == "cpu family" {
                family = Int(value.trimmingCharacters(in: .whitespaces))
            } else if number == nil && key == "model" {
                number = Int(value.trimmingCharacters(in: .whitespaces))
            } else if implementer == nil && key == "CPU implementer" {
                implementer = hexadecimal(value)
            } else if part == nil && key == "CPU part" {
                part = hexadecimal(value)
            }
        }
        return CPUFeatures(flags: flags.union(baselineFlags), modelName: model, vendor: vendor, family: family ?? 0,
                           model: number ?? 0, armImplementer: implementer ?? 0, armPart: part ?? 0)
    }

    /// `0x41` (as /proc/cpuinfo writes its arm64 fields) as a number; nil if it is not one.
    static func hexadecimal(_ text: Substring) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces)
        return t.hasPrefix("0x") ? Int(t.dropFirst(2), radix: 16) : nil
    }

    #if canImport(Darwin)
    static func probeSysctl() -> CPUFeatures {
        func has(_ name: String) -> Bool {
            var value: Int32 = 0
            var size = MemoryLayout<Int32>.size
            return sysctlbyname(name, &value, &size, nil, 0) == 0 && value != 0
        }
        var flags = baselineFlags
        let names: [(String, String)] = [
            ("hw.optional.avx2_0", "avx2"), ("hw.optional.fma", "fma"), ("hw.optional.avx512f", "avx512f"),
            ("hw.optional.avx512dq", "avx512dq"), ("hw.optional.avx512bw", "avx512bw"),
            ("hw.optional.avx512vl", "avx512vl"), ("hw.optional.avx512cd", "avx512cd"),
            ("hw.optional.avx512vnni", "avx512_vnni"),
            ("hw.optional.neon", "asimd"), ("hw.optional.AdvSIMD", "asimd"),
        ]
        for (sysctl, flag) in names where has(sysctl) { flags.insert(flag) }
        var size = 0
        var model = ""
        if sysctlbyname("machdep.cpu.brand_string", nil, &size, nil, 0) == 0, size > 0 {
            var bytes = [CChar](repeating: 0, count: size)
            if sysctlbyname("machdep.cpu.brand_string", &bytes, &size, nil, 0) == 0 { model = String(cString: bytes) }
        }
        return CPUFeatures(flags: flags, modelName: model)
    }
    #endif
}
