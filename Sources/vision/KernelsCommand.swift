import Foundation
import TasksVisionEngine

/// `vision kernels`: which microkernel sets this CPU runs, and which one the engine takes.
enum KernelsCommand: VisionCommand {
    static let table = OptionTable(
        command: "kernels", summary: "The CPU, the kernel sets it supports and the one in use.",
        positional: [],
        options: [.flag("--supported", "print only the supported sets, one a line, fastest first")],
        notes: ["\(KernelSet.environmentVariable)=portable|avx2|avx512|neon forces a set.",
                "\(CPUFeatures.identityVariable)=FILE (in /proc/cpuinfo's format) makes the engine follow "
                    + "XNNPACK as on that CPU."])

    static func run(_ options: ParsedOptions) throws {
        guard options.positional.isEmpty else { throw UsageError(table.usage) }
        let supported = KernelSet.supported()
        if options.flag("--supported") {
            // One set per line, fastest first (for scripts: CI runs the suite under each).
            for set in supported { print(set.rawValue) }
            return
        }
        let features = CPUFeatures.current
        let inUse = try KernelSet.fromEnvironment()
        print("cpu: \(features.modelName.isEmpty ? "unknown" : features.modelName)")
        let shown = ["avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd", "asimd"]
            .filter(features.flags.contains)
        print("features: \(shown.joined(separator: " "))")
        print("supported: \(supported.map(\.rawValue).joined(separator: ", "))")
        let forced = ProcessInfo.processInfo.environment[KernelSet.environmentVariable] != nil
        print("in use: \(inUse)\(forced ? " (\(KernelSet.environmentVariable))" : "")")
        print("sums as XNNPACK: \(inUse.sumsAsXNNPACK ? "yes" : "no") "
              + "(OpenBLAS kernels: \(BLASConfiguration.coreName))")
        let identity = CPUFeatures.identityVariable
        if let path = ProcessInfo.processInfo.environment[identity], !path.isEmpty {
            print(FileManager.default.isReadableFile(atPath: path)
                  ? "behaving as: the CPU \(identity) describes, with the flags this one has too"
                  : "\(identity): cannot read \(path); this CPU's own identity is used")
        }
        if inUse == .avx2 && features.gemmSumsRotatedQuads {
            print("GEMM order: XNNPACK's rotated quads (the first Zen's 4x16s4 kernels; results differ from other "
                  + "x86 CPUs' in their last digits, as MediaPipe's do)")
        }
    }
}
