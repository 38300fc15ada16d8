import TasksVisionEngine
import TasksVisionFormat

/// A loaded model with what MediaPipe reads from its metadata: the input value range and associated files.
/// The model file's bytes are not kept: the interpreter holds its own converted weights, so a task holds a
/// model's weights once.
struct ModelResources {
    /// The model's name in messages (its path, or bundle:member).
    let name: String
    let interpreter: Interpreter
    let metadata: ModelMetadata?
    let associatedFiles: [String: [UInt8]]
    let inputWidth: Int
    let inputHeight: Int

    init(model: TFLiteModel, threads: Int, options: Interpreter.Options? = nil) throws {
        name = model.name
        var options = options ?? Interpreter.Options()
        options.threads = threads
        interpreter = try Interpreter(model: model, options: options)
        metadata = try model.metadata()
        associatedFiles = try model.associatedFiles()
        let shape = interpreter.inputs.first?.shape ?? []
        if shape.count == 4 {
            inputHeight = shape[1]; inputWidth = shape[2]
        } else {
            inputHeight = 0; inputWidth = 0
        }
    }

    init(path: String, threads: Int) throws {
        try self.init(model: try ModelAsset.loadModel(path), threads: threads)
    }

    /// Throws unless the model's first input and every output are float32, as the float stages read them: a
    /// quantized model given to one of them is refused here, by name, rather than misread.
    func requireFloat32(_ task: String) throws {
        let tensors = interpreter.inputs.prefix(1).map { ("input", $0) } + interpreter.outputs.map { ("output", $0) }
        for (kind, tensor) in tensors where tensor.type != .float32 {
            throw VisionTaskError.invalidModel("\(name): \(kind) '\(tensor.name)' is \(tensor.type); \(task) takes "
                                               + "float32 models")
        }
    }

    /// MediaPipe's input range from the metadata normalization: [(0 - mean) / std, (255 - mean) / std].
    func inputRange(default fallback: ImageToTensor.ValueRange?) throws -> ImageToTensor.ValueRange {
        if let n = metadata?.inputNormalization, let mean = n.mean.first, let std = n.std.first, std != 0 {
            return .init(min: (0 - mean) / std, max: (255 - mean) / std)
        }
        guard let fallback else {
            throw VisionTaskError.invalidModel("\(name) has no input normalization in its metadata")
        }
        return fallback
    }
}

extension Interpreter.Options {
    /// Options whose interpreters share one activation arena (`SharedArena`): for a task's models, which run one
    /// after another under the task's lock, each stage reading its outputs before the next stage runs.
    static func sharingOneArena() throws -> Interpreter.Options {
        var options = Interpreter.Options()
        options.sharedArena = try SharedArena()
        return options
    }
}
