// The one file that names the platform's BLAS. The portable kernel set runs its products on it: OpenBLAS where the
// package depends on it (Linux and other non-Apple platforms), Accelerate on Apple platforms, where no processor needs
// the portable set (every arm64 core has NEON with FMA, every Intel Mac AVX2) and OpenBLAS would mean Homebrew and
// pkg-config. Accelerate is asked first: on Apple platforms COpenBLAS is no dependency, elsewhere Accelerate does not
// exist, except in the stand-in build (tools/apple_standins.sh), which so type-checks this branch. It has not run yet.
#if canImport(Accelerate)
import Accelerate
#elseif canImport(COpenBLAS)
import COpenBLAS
#endif

/// Row-major single-precision BLAS calls, as the engine makes them.
enum PlatformBLAS {
    /// The platform's BLAS by name: OpenBLAS's chosen kernels ("SkylakeX", "Haswell", ...), or "Accelerate".
    static var name: String {
        #if canImport(Accelerate)
        return "Accelerate"
        #elseif canImport(COpenBLAS)
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
        #else
        return "none"
        #endif
    }

    /// Whether the library is OpenBLAS, whose kernel choice and summation order the portable set's parity relies on.
    static let isOpenBLAS: Bool = {
        #if canImport(Accelerate)
        return false
        #elseif canImport(COpenBLAS)
        return true
        #else
        return false
        #endif
    }()

    /// C = A * B, row-major, no transposes (alpha 1, beta 0).
    @inline(__always)
    static func sgemm(m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
                      c: UnsafeMutablePointer<Float>, ldc: Int) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b,
                    Int32(ldb), 0, c, Int32(ldc))
    }

    /// y += alpha * x.
    @inline(__always)
    static func saxpy(count: Int, alpha: Float, x: UnsafePointer<Float>, incX: Int, y: UnsafeMutablePointer<Float>,
                      incY: Int) {
        cblas_saxpy(Int32(count), alpha, x, Int32(incX), y, Int32(incY))
    }

    /// Keeps the library's own threads out of the engine's way (OpenBLAS: one thread; Accelerate: as it is).
    static func setSingleThreaded() {
        #if !canImport(Accelerate) && canImport(COpenBLAS)
        openblas_set_num_threads(1)
        #endif
    }
}
