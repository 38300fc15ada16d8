import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// The front of MediaPipe's image classifier and embedder graphs: `ImagePreprocessingGraph` (the image, or a
/// region of it, turned upright and stretched into the model's input) and inference, with the outputs read as
/// floats (`TensorsDequantizationCalculator` for uint8 ones). Not reentrant: one caller at a time.
final class ImageModelStage {
    /// The model file's name, for messages.
    let name: String
    let metadata: ModelMetadata?
    /// The metadata's associated files (labels, score calibrations).
    let associatedFiles: [String: [UInt8]]
    /// The model's bytes are not kept past loading: the interpreter holds what it needs.
    let interpreter: Interpreter
    let specs: ImageTensorSpecs
    /// Per output: its element count and, for a uint8 output, its quantization.
    let outputs: [Output]
    /// The dequantized output of a uint8 head (reused).
    private var dequantized: [[Float]]

    struct Output {
        let count: Int
        let quantization: (scale: Float, zeroPoint: Int)?
    }

    /// Loads `path` for a task taking `need` ("an image classifier"), checking it is a model of a kind in
    /// `accepts` before the engine reads it.
    init(path: String, threads: Int, need: String, accepts: Set<ImageModelKind>) throws {
        let (model, metadata) = try VisionTaskError.wrappingModelErrors {
            let model = try ModelAsset.loadModel(path)
            return (model, try model.metadata())
        }
        try ImageModelKind.require(model, metadata: metadata, need: need, accepts: accepts)
        do {
            specs = try ImageTensorSpecs(model: model, metadata: metadata)
        } catch let f as ImageTensorSpecs.Failure {
            throw VisionTaskError.invalidModel("\(model.name): \(f.status): \(f.text)")
        }
        guard let sg = model.subgraphs.first else {
            throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: The model has no subgraph.")
        }
        // GetClassificationHeadsProperties / HasQuantizedOutputs: float32 or uint8 outputs, all or none quantized.
        var quantized = 0
        for (i, t) in sg.outputs.enumerated() {
            guard sg.tensors.indices.contains(t) else {
                throw VisionTaskError.invalidModel("\(model.name): output \(i) names no tensor")
            }
            let type = sg.tensors[t].type
            guard type == .float32 || type == .uint8 else {
                throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Expected output tensor at index "
                                                   + "\(i) to have type UINT8 or FLOAT32, found \(type.schemaName) "
                                                   + "instead.")
            }
            quantized += type == .uint8 ? 1 : 0
        }
        guard quantized == 0 || quantized == sg.outputs.count else {
            throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Expected either all or none of the "
                                               + "output tensors to be quantized, but found \(quantized) quantized "
                                               + "outputs for \(sg.outputs.count) total outputs.")
        }
        if let meta = metadata?.subgraphs.first?.outputs, !meta.isEmpty, meta.count != sg.outputs.count {
            throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Mismatch between number of output "
                                               + "tensors (\(sg.outputs.count)) and output tensors metadata "
                                               + "(\(meta.count)).")
        }
        (interpreter, associatedFiles) = try VisionTaskError.wrappingModelErrors {
            (try Interpreter(model: model, options: Interpreter.Options(threads: threads)), try model.associatedFiles())
        }
        outputs = try interpreter.outputs.enumerated().map { i, tensor in
            guard tensor.type == .uint8 else { return Output(count: tensor.elementCount, quantization: nil) }
            guard let q = tensor.quantization else {
                throw VisionTaskError.invalidModel("\(model.name): output \(i) (\(tensor.name)) is uint8 without "
                                                   + "quantization parameters")
            }
            return Output(count: tensor.elementCount, quantization: (q.scale, q.zeroPoint))
        }
        name = model.name
        self.metadata = metadata
        dequantized = outputs.map { $0.quantization == nil ? [] : [Float](repeating: 0, count: $0.count) }
    }

    /// The output tensors' metadata, when the model has some.
    var outputMetadata: [ModelMetadata.TensorMetadata] { metadata?.subgraphs.first?.outputs ?? [] }

    /// Preprocesses `region` of `image` (the whole image when nil) into the input and runs the model.
    func run(_ image: MPImage, region: CGRect?) {
        let pixels = ImagePreprocessing.pixels(image, region: region, width: specs.width, height: specs.height)
        if let range = specs.range {
            interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        } else {
            // A uint8 input takes the pixels as they are (output_tensor_uint_range [0, 255]).
            interpreter.stageInputBytes(0) { bytes in
                pixels.withUnsafeBytes { bytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<min($0.count,
                                                                                                     bytes.count)])) }
            }
        }
        interpreter.invoke()
        for (i, o) in outputs.enumerated() {
            guard let q = o.quantization else { continue }
            interpreter.stageOutputBytes(i) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                dequantized[i].withUnsafeMutableBufferPointer {
                    TensorsDequantization.dequantize(bytes, scale: q.scale, zeroPoint: q.zeroPoint, into: $0)
                }
            }
        }
    }

    /// Output `index` of the last run as floats.
    func withOutput<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        if outputs[index].quantization != nil {
            return try dequantized[index].withUnsafeBufferPointer { try body($0) }
        }
        return try interpreter.stageOutput(index) { try body(UnsafeBufferPointer(rebasing: $0[..<min(
            $0.count, outputs[index].count)])) }
    }
}
