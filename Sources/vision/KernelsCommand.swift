import Foundation
import TasksVisionEngine

/// `vision kernels`: which microkernel sets this CPU runs, and which one the engine takes.
enum KernelsCommand {
    static func run(_ args: [String]) throws {
        let options = try OptionParser(args, valued: [], flags: ["--supported"])
        guard options.positional.isEmpty else { throw UsageError("usage: vision kernels [--supported]") }
        let supported = KernelSet.supported()
        if options.flags.contains("--supported") {
            // One set per line, fastest first (for scripts: CI runs the suite under each).
            for set in supported { print(set.rawValue) }
            return
        }
        let features = CPUFeatures.current
        let inUse = try KernelSet.fromEnvironment()
        print("cpu: \(features.modelName.isEmpty ? "unknown" : features.modelName)")
        let shown = ["avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512cd", "asimd"].filter(features.flags.contains)
        print("features: \(shown.joined(separator: " "))")
        print("supported: \(supported.map(\.rawValue).joined(separator: ", "))")
        print("in use: \(inUse)\(ProcessInfo.processInfo.environment[KernelSet.environmentVariable].map { _ in " (\(KernelSet.environmentVariable))" } ?? "")")
        print("sums as XNNPACK: \(inUse.sumsAsXNNPACK ? "yes" : "no") (OpenBLAS kernels: \(BLASConfiguration.coreName))")
    }
}
