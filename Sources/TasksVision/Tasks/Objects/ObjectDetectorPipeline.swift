import Foundation
import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's `ObjectDetectorGraph` on the CPU (mediapipe/tasks/cc/vision/object_detector/
/// object_detector_graph.cc): `ImagePreprocessingGraph` (the image, turned upright by its rotation, or a region
/// of it, stretched into the model's input: no letterbox, replicated border), inference,
/// `DetectionPostprocessing`, `DetectionProjectionCalculator` back to the stored image,
/// `DetectionTransformationCalculator` to its pixels and `DetectionsDeduplicateCalculator`.
/// Not reentrant: one caller at a time.
final class ObjectDetectorPipeline {
    let model: TFLiteModel
    let specs: ImageTensorSpecs
    let postprocessing: DetectionPostprocessing
    let resources: ModelResources

    /// A detection as the graph outputs it: its categories, and its box in pixels of the stored image.
    struct Found: Equatable {
        var labels: DetectionLabels
        var box: PixelBox
    }

    init(path: String, threads: Int, options: DetectionPostprocessing.Options) throws {
        try DetectionPostprocessing.check(options)
        let model = try VisionTaskError.wrappingModelErrors { try ModelAsset.loadModel(path) }
        let metadata = try VisionTaskError.wrappingModelErrors { try model.metadata() }
        let files = try VisionTaskError.wrappingModelErrors { try model.associatedFiles() }
        do {
            guard model.subgraphs.count == 1 else {
                throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Expected a model with a single "
                                                   + "subgraph, found \(model.subgraphs.count).")
            }
            guard metadata?.subgraphs.first != nil else {
                throw VisionTaskError.invalidModel("\(model.name): INVALID_ARGUMENT: Object detection models require "
                                                   + "TFLite Model Metadata but none was found")
            }
            do {
                specs = try ImageTensorSpecs(model: model, metadata: metadata)
            } catch let f as ImageTensorSpecs.Failure {
                throw VisionTaskError.invalidModel("\(model.name): \(f.status): \(f.text)")
            }
            // The crop is RGB; MediaPipe's detector documentation requires 3 channels too.
            if let sg = model.subgraphs.first, let input = sg.inputs.first, sg.tensors.indices.contains(input),
               sg.tensors[input].shape.last != 3 {
                throw VisionTaskError.invalidModel("\(model.name): its input \(sg.tensors[input].shape) is not RGB "
                                                   + "[1, height, width, 3]")
            }
            postprocessing = try DetectionPostprocessing(model: model, metadata: metadata, files: files,
                                                         options: options)
        } catch VisionTaskError.invalidModel(let message) {
            throw Self.namingKind(message, model: model, metadata: metadata)
        }
        self.model = model
        resources = try VisionTaskError.wrappingModelErrors { try ModelResources(model: model, threads: threads) }
        for (i, o) in resources.interpreter.outputs.enumerated() where o.type != .float32 {
            guard o.type == .uint8 else {
                throw VisionTaskError.invalidModel("\(model.name): output \(i) (\(o.name)) is \(o.type); the object "
                                                   + "detector takes float32 or uint8 outputs")
            }
            guard o.quantization != nil else {
                throw VisionTaskError.invalidModel("\(model.name): output \(i) (\(o.name)) is uint8 without "
                                                   + "quantization parameters")
            }
        }
    }

    /// A model of another kind (a classifier given to the detector) is named for what it is, with MediaPipe's
    /// description of the first check it fails after it.
    static func namingKind(_ message: String, model: TFLiteModel, metadata: ModelMetadata?) -> VisionTaskError {
        let kind = ImageModelKind.of(model, metadata: metadata)
        guard kind != .detector else { return .invalidModel(message) }
        let prefix = model.name + ": "
        let rest = message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
        return .invalidModel("\(model.name) is \(kind.name) (outputs \(ImageModelKind.outputShapes(model))), not an "
                             + "object detector; use \(kind.task): \(rest)")
    }

    /// The detections of `region` of `image` (the whole image when nil), as MediaPipe's graph outputs them.
    func run(_ image: MPImage, region: CGRect?) -> [Found] {
        let roi = ImagePreprocessing.roi(image, region: region)
        let flip = image.orientation.isMirrored
        let pixels = ImageToTensor.warp(image, roi: roi, flipHorizontally: flip, width: specs.width,
                                        height: specs.height, border: .replicate)
        let interpreter = resources.interpreter
        if let range = specs.range {
            interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        } else {
            Self.writeBytes(interpreter, pixels)
        }
        interpreter.invoke()
        let p = postprocessing
        let detections = withFloats(p.boxesOutput) { boxes in
            withFloats(p.scoresOutput) { scores in p.detections(boxes: boxes, scores: scores) }
        }
        return Self.project(detections, roi: roi, flip: flip, imageWidth: image.pixelWidth,
                            imageHeight: image.pixelHeight)
    }

    /// Projection through the crop's matrix, conversion to pixels of the stored image, deduplication.
    static func project(_ detections: [(labels: DetectionLabels, box: RelativeBox)], roi: RotatedRect, flip: Bool,
                        imageWidth: Int, imageHeight: Int) -> [Found] {
        let matrix = ImageToTensor.transformMatrix(roi, imageWidth: imageWidth, imageHeight: imageHeight,
                                                   flipHorizontally: flip)
        let pixels = detections.map { d -> (labels: DetectionLabels, box: PixelBox) in
            let raw = RawDetection(score: 0, classId: 0, box: d.box, keypoints: [])
            let projected = DetectionProjection.project(raw, matrix: matrix)
            return (d.labels, PixelBox(projected.box, width: imageWidth, height: imageHeight))
        }
        return DetectionsDeduplicate.deduplicate(pixels).map { Found(labels: $0.labels, box: $0.box) }
    }
}

extension ObjectDetectorPipeline {
    /// A uint8 input (efficientdet_lite0.tflite's) takes the pixels as they are.
    static func writeBytes(_ interpreter: Interpreter, _ pixels: [UInt8]) {
        interpreter.stageInputBytes(0) { target in
            target.copyBytes(from: pixels.prefix(target.count))
        }
    }

    /// Output `index` as floats: a uint8 output dequantized as `TensorsDequantizationCalculator` does,
    /// `(q - zero point) * scale`.
    func withFloats<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) -> R) -> R {
        let interpreter = resources.interpreter
        guard let q = interpreter.outputs[index].quantization, interpreter.outputs[index].type == .uint8 else {
            return interpreter.stageOutput(index, body)
        }
        let values = interpreter.stageOutputBytes(index) { bytes in
            bytes.map { Float(Int($0) - q.zeroPoint) * q.scale }
        }
        return values.withUnsafeBufferPointer(body)
    }
}
