import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// The front of MediaPipe's image classifier and embedder graphs: `ImagePreprocessingGraph` (the image, or a
/// region of it, turned upright and stretched into the model's input) and inference, with the outputs read as
/// floats (`TensorsDequantizationCalculator` for uint8 ones). Not reentrant: one caller at a time.
final class ImageModelStage {
    let model: TFLiteModel
    let metadata: ModelMetadata?
    let resources: ModelResources
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
        if specs.type == .uint8 || sg.outputs.contains(where: { sg.tensors.indices.contains($0) && sg.tensors[$0].type == .uint8 }) {
            throw VisionTaskError.invalidModel("\(model.name): uint8 models are not run by this engine yet")
        }
        var outputs: [Output] = []
        for (i, t) in sg.outputs.enumerated() {
            guard sg.tensors.indices.contains(t) else {
                throw VisionTaskError.invalidModel("\(model.name): output \(i) names no tensor")
            }
            let tensor = sg.tensors[t]
            switch tensor.type {
            case .float32: outputs.append(Output(count: tensor.elementCount, quantization: nil))
            case .uint8:
                guard let q = Self.quantization(model, tensor) else {
                    throw VisionTaskError.invalidModel("\(model.name): output \(i) (\(tensor.name)) is uint8 "
                                                       + "without quantization parameters")
                }
                outputs.append(Output(count: tensor.elementCount, quantization: q))
            default:
                throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Expected output tensor at index "
                                                   + "\(i) to have type UINT8 or FLOAT32, found "
                                                   + "\(tensor.type.schemaName) instead.")
            }
        }
        let quantized = outputs.filter { $0.quantization != nil }.count
        guard quantized == 0 || quantized == outputs.count else {
            throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Expected either all or none of the "
                                               + "output tensors to be quantized, but found \(quantized) quantized "
                                               + "outputs for \(outputs.count) total outputs.")
        }
        if let meta = metadata?.subgraphs.first?.outputs, !meta.isEmpty, meta.count != outputs.count {
            throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Mismatch between number of output "
                                               + "tensors (\(outputs.count)) and output tensors metadata "
                                               + "(\(meta.count)).")
        }
        self.model = model
        self.metadata = metadata
        self.outputs = outputs
        dequantized = outputs.map { $0.quantization == nil ? [] : [Float](repeating: 0, count: $0.count) }
        resources = try VisionTaskError.wrappingModelErrors { try ModelResources(model: model, threads: threads) }
    }

    /// The output tensors' metadata, when the model has some.
    var outputMetadata: [ModelMetadata.TensorMetadata] { metadata?.subgraphs.first?.outputs ?? [] }

    /// Preprocesses `region` of `image` (the whole image when nil) into the input and runs the model.
    func run(_ image: MPImage, region: CGRect?) {
        let pixels = ImagePreprocessing.pixels(image, region: region, width: specs.width, height: specs.height)
        let interpreter = resources.interpreter
        if let range = specs.range {
            interpreter.withInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        } else {
            Self.writeBytes(interpreter, pixels)
        }
        interpreter.invoke()
        for (i, o) in outputs.enumerated() {
            guard let q = o.quantization else { continue }
            Self.readBytes(interpreter, i) { bytes in
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
        return try resources.interpreter.withOutput(index) { try body(UnsafeBufferPointer(rebasing: $0[..<min(
            $0.count, outputs[index].count)])) }
    }
}

// The engine's uint8 tensors (efficientnet_lite0.tflite: uint8 image in, uint8 scores out).
extension ImageModelStage {
    static func quantization(_ model: TFLiteModel, _ tensor: TFLiteModel.Tensor) -> (scale: Float, zeroPoint: Int)? {
        nil
    }

    static func writeBytes(_ interpreter: Interpreter, _ pixels: [UInt8]) {}

    static func readBytes(_ interpreter: Interpreter, _ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {}
}
