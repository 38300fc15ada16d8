import Foundation

/// A set of microkernels built for one instruction set, as XNNPACK's per-ISA configurations.
///
/// Every FMA set (`avx2`, `avx512`, `neon`) sums each output as XNNPACK's kernels do: one
/// fused multiply-add chain from the bias, so their results are the same bits on every CPU.
/// The `portable` set runs the baseline Swift kernels and OpenBLAS: results then depend on
/// which OpenBLAS kernels load (they equal XNNPACK's where those fuse as XNNPACK does).
public enum KernelSet: String, CaseIterable, Sendable, CustomStringConvertible {
    case portable
    /// x86-64 AVX2 with FMA3, 256-bit vectors (built with `-target-cpu haswell`).
    case avx2
    /// x86-64 AVX-512 (F, DQ, BW, VL, CD), 512-bit vectors (built with `-target-cpu skylake-avx512`).
    case avx512
    /// arm64 Advanced SIMD, 128-bit vectors with fused multiply-add.
    case neon

    public var description: String { rawValue }

    /// The environment variable that forces a set (`portable`, `avx2`, `avx512`, `neon`).
    public static let environmentVariable = "TASKSVISION_KERNELS"

    /// Whether this build has the set's code and `features` can run it.
    public func isSupported(on features: CPUFeatures = .current) -> Bool {
        switch self {
        case .portable: return true
        #if arch(x86_64)
        case .avx2: return features.hasAVX2FMA
        case .avx512: return features.hasAVX512
        case .neon: return false
        #elseif arch(arm64)
        case .neon: return features.hasNEON
        case .avx2, .avx512: return false
        #else
        case .avx2, .avx512, .neon: return false
        #endif
        }
    }

    /// The fastest set `features` supports.
    public static func best(for features: CPUFeatures = .current) -> KernelSet {
        for set in [KernelSet.avx512, .avx2, .neon] where set.isSupported(on: features) { return set }
        return .portable
    }

    /// Every set `features` supports, fastest first.
    public static func supported(on features: CPUFeatures = .current) -> [KernelSet] {
        [KernelSet.avx512, .avx2, .neon, .portable].filter { $0.isSupported(on: features) }
    }

    /// The set named by `TASKSVISION_KERNELS`, or the best one when it is unset or empty.
    /// Throws `KernelSetError` for an unknown name or a set this CPU cannot run.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                                       features: CPUFeatures = .current) throws -> KernelSet {
        guard let name = environment[environmentVariable], !name.isEmpty else { return best(for: features) }
        return try named(name, features: features)
    }

    /// The set called `name`, checked against `features`.
    public static func named(_ name: String, features: CPUFeatures = .current) throws -> KernelSet {
        guard let set = KernelSet(rawValue: name.lowercased()) else {
            throw KernelSetError.unknown(name)
        }
        guard set.isSupported(on: features) else {
            throw KernelSetError.unsupported(set, supported: supported(on: features))
        }
        return set
    }

    /// Whether the set's GEMM and depthwise kernels fuse each multiply-add (XNNPACK's rounding).
    public var fusesMultiplyAdd: Bool { self != .portable }
}

/// A kernel set that was asked for and cannot be had.
public enum KernelSetError: Error, CustomStringConvertible, Equatable {
    case unknown(String)
    case unsupported(KernelSet, supported: [KernelSet])

    public var description: String {
        switch self {
        case .unknown(let name):
            return "unknown kernel set '\(name)' (\(KernelSet.environmentVariable) takes "
                + KernelSet.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case .unsupported(let set, let supported):
            return "kernel set '\(set)' needs instructions this CPU lacks; it supports "
                + supported.map(\.rawValue).joined(separator: ", ")
        }
    }
}
