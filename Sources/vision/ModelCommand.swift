import Foundation
import TasksVisionEngine
import TasksVisionFormat
import TasksVisionKernels

/// `vision model info|run`: the two commands' tables and what they do.
enum ModelCommand {
    static let infoTable = OptionTable(
        command: "model info", summary: "Inputs, outputs, operator counts, kernels and metadata of a model.",
        positional: ["MODEL"], options: [],
        notes: [modelNote])

    static let runTable = OptionTable(
        command: "model run", summary: "Run one inference and write every output as DIR/<output index>.npy (its type).",
        positional: ["MODEL"],
        options: [
            .text("--input", "F.npy", default: "none; one is needed per model input", repeatable: true,
                  "an input tensor (.npy), one per model input, in order; a quantized input takes its own type "
                      + "(int8 or uint8) or whole numbers in its range"),
            .required("--out", "DIR", "the folder the outputs are written to (old name: --output)"),
            TaskCommandOptions.threads,
        ],
        notes: [modelNote])

    static let modelNote = "MODEL is a .tflite file or a member of a .task bundle: bundle.task:member.tflite "
        + "(nested with more colons)."

    static func info(_ options: ParsedOptions) throws {
        guard options.positional.count == 1, let path = options.positional.first else {
            throw UsageError("give one MODEL (see vision model info --help)")
        }
        let model = try ModelAsset.loadModel(path)
        // Building the plan checks every op is supported.
        let interpreter = try Interpreter(model: model)
        guard let sg = model.subgraphs.first else { return }
        print("model: \(model.name)")
        print("subgraphs: \(model.subgraphs.count), operators: \(sg.operators.count), tensors: \(sg.tensors.count)")
        print("inputs:")
        for (i, t) in interpreter.inputs.enumerated() { print("  \(i): \(t)") }
        print("outputs:")
        for (i, t) in interpreter.outputs.enumerated() { print("  \(i): \(t)") }
        var counts: [String: Int] = [:]
        for op in sg.operators { counts[op.opcode.name, default: 0] += 1 }
        print("operators:")
        for (name, n) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            print("  \(name): \(n)")
        }
        let cpu = CPUFeatures.current.modelName.isEmpty ? "unknown" : CPUFeatures.current.modelName
        let sets = KernelSet.supported().map(\.rawValue).joined(separator: ", ")
        let chooser = KernelSet.environmentVariable
        print("kernels: \(interpreter.kernelSet) (CPU \(cpu); supports \(sets); \(chooser) chooses)")
        let mflop = String(format: "%.1f", interpreter.flops / 1e6)
        print("engine: \(interpreter.layerCount) layers after folding and fusion, "
              + "arena \(interpreter.arenaBytes) bytes, weights \(interpreter.constantBytes) bytes, \(mflop) MFLOP")
        if let meta = try model.metadata() {
            print("metadata:")
            if let n = meta.name { print("  name: \(n)") }
            if let v = meta.version { print("  version: \(v)") }
            if let a = meta.author { print("  author: \(a)") }
            for (si, sub) in meta.subgraphs.enumerated() {
                for (i, t) in sub.inputs.enumerated() {
                    var line = "  input \(i)" + (t.name.map { " \($0)" } ?? "")
                    if let norm = t.normalization { line += ": normalization mean \(norm.mean) std \(norm.std)" }
                    print(line)
                }
                for (i, t) in sub.outputs.enumerated() { print("  output \(i)" + (t.name.map { " \($0)" } ?? "")) }
                _ = si
            }
            let files = meta.allAssociatedFileNames
            if !files.isEmpty { print("  associated files: \(files.joined(separator: ", "))") }
        } else {
            print("metadata: none")
        }
        let appended = try model.associatedFiles()
        if !appended.isEmpty {
            let files = appended.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value.count) bytes)" }
            print("appended files: " + files.joined(separator: ", "))
        }
    }

    static func runModel(_ options: ParsedOptions) throws {
        guard options.positional.count == 1, let path = options.positional.first else {
            throw UsageError("give one MODEL (see vision model run --help)")
        }
        let outDir = options.string("--out") ?? "."
        try OutputPath.folder(outDir, option: "--out")
        let threads = try options.int("--threads")
        let interpreter = try Interpreter(model: try ModelAsset.loadModel(path), options: .init(threads: threads))
        let inputFiles = options.strings("--input")
        guard inputFiles.count == interpreter.inputs.count else {
            let shapes = interpreter.inputs.map(\.description).joined(separator: "; ")
            throw UsageError("\(path) has \(interpreter.inputs.count) inputs (\(shapes)), "
                             + "got \(inputFiles.count) --input files")
        }
        for (i, file) in inputFiles.enumerated() {
            let array = try NumpyArray.read(file)
            let expected = interpreter.inputs[i]
            guard array.elementCount == expected.elementCount else {
                throw UsageError("\(file): shape \(array.shape) does not fit input \(i) '\(expected.name)' "
                                 + "of shape \(expected.shape)")
            }
            try interpreter.setInput(i, bytes: try inputBytes(array, file: file, for: expected))
        }
        interpreter.invoke()
        try OutputPath.makeFolder(outDir)
        for i in 0..<interpreter.outputs.count {
            let output = interpreter.outputs[i]
            let array = output.type == .float32
                ? NumpyArray(shape: output.shape, floats: try interpreter.output(i))
                : NumpyArray(shape: output.shape, dtype: output.type == .int8 ? .int8 : .uint8,
                             data: try interpreter.outputBytes(i))
            try OutputFile.write(array.encoded(), to: PathText.join(outDir, "\(i).npy"))
        }
    }
}

extension ModelCommand {
    /// An input file's values as the bytes of the model input: float32 inputs take any numbers; a quantized input
    /// takes an array of its own type as it is, or whole numbers within its type's range.
    static func inputBytes(_ array: NumpyArray, file: String, for input: TensorDescription) throws -> [UInt8] {
        switch input.type {
        case .float32:
            return array.floats().withUnsafeBytes { Array($0) }
        case .uint8, .int8:
            if (input.type == .uint8 && array.dtype == .uint8) || (input.type == .int8 && array.dtype == .int8) {
                return array.data
            }
            let range: ClosedRange<Float> = input.type == .uint8 ? 0...255 : -128...127
            return try array.floats().map { v in
                guard v.rounded() == v, range.contains(v) else {
                    throw UsageError("\(file): \(v) is not a \(input.type) value (input '\(input.name)' is "
                                     + "\(input.type))")
                }
                return input.type == .uint8 ? UInt8(v) : UInt8(bitPattern: Int8(v))
            }
        default:
            throw UsageError("input '\(input.name)' is \(input.type), which model run cannot fill")
        }
    }
}

/// `vision model info MODEL`.
enum ModelInfoCommand: VisionCommand {
    static var table: OptionTable { ModelCommand.infoTable }
    static var usageNote: String? { ModelCommand.modelNote }
    static func run(_ options: ParsedOptions) throws { try ModelCommand.info(options) }
}

/// `vision model run MODEL --input F.npy... --out DIR`.
enum ModelRunCommand: VisionCommand {
    static var table: OptionTable { ModelCommand.runTable }
    static var usageNote: String? { ModelCommand.modelNote }
    static func run(_ options: ParsedOptions) throws { try ModelCommand.runModel(options) }
    /// DIR/0.npy, DIR/1.npy, ...: one per output of the model.
    static func folderOutputNames(_ options: ParsedOptions) -> ((String) -> Bool)? {
        { name in
            name.hasSuffix(".npy") && name.count > 4 && name.dropLast(4).allSatisfy { $0.isASCII && $0.isNumber }
        }
    }
}
