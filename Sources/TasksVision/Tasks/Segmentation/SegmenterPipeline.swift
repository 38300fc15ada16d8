import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's `ImageSegmenterGraph` on the CPU (image_segmenter_graph.cc), shared by `ImageSegmenter` and
/// ML Kit's `Segmenter`: the whole image (turned upright by its orientation) stretched into the model's
/// input by `ImageToTensorCalculator` (no letterbox, replicated border), inference, then
/// `SegmenterTensorsToMasks` to the output size. Not reentrant: one caller at a time.
final class SegmenterPipeline {
    let resources: ModelResources
    let range: ImageToTensor.ValueRange
    let activation: SegmenterTensorsToMasks.Activation
    /// The output tensor the masks come from, and its size.
    let output: Int
    let shape: SegmenterTensorsToMasks.Shape
    /// The category names (the output tensor's `TENSOR_AXIS_LABELS` file), empty without one.
    let labels: [String]

    init(path: String, threads: Int, displayNamesLocale: String = "en") throws {
        let model = try ModelAsset.loadModel(path)
        let name = model.name
        let sg = model.subgraphs.first
        func tensorShape(_ index: Int?) -> [Int]? {
            guard let sg, let index, sg.tensors.indices.contains(index) else { return nil }
            return sg.tensors[index].shape
        }
        let inputShape = tensorShape(sg?.inputs.first)
        guard let input = inputShape, input.count == 4, input[3] == 3 else {
            throw VisionTaskError.invalidModel("\(name) is not an image segmenter: its input is "
                                               + "\(inputShape ?? []), not [1, H, W, 3]")
        }
        // MediaPipe reads the model's last output (GetOutputTensor) as an image-like tensor, of 2 to 4
        // dimensions; a detector's [1, N, K] would pass there, so a [1, H, W, C] image is required here, and a
        // model of another kind is named for what it is.
        let outputShape = tensorShape(sg?.outputs.last)
        guard let lastShape = outputShape, lastShape.count == 4, lastShape[0] == 1,
              let shape = SegmenterTensorsToMasks.Shape(dimensions: lastShape), shape.width > 1, shape.height > 1 else {
            let kind = ImageModelKind.of(model, metadata: try? model.metadata())
            if kind != .segmenter { throw ImageModelKind.refusal(model, kind: kind, need: "an image segmenter") }
            throw VisionTaskError.invalidModel("\(name) is not an image segmenter: its output "
                                               + "\(outputShape ?? []) is not an [1, H, W, C] segmentation")
        }
        let resources = try ModelResources(model: model, threads: threads)
        guard let last = resources.interpreter.outputs.indices.last else {
            throw VisionTaskError.invalidModel("\(name) has no output")
        }
        let subgraph = resources.metadata?.subgraphs.first
        var activation = SegmenterTensorsToMasks.Activation.none
        if let custom = subgraph?.customMetadata.first(where: { $0.name == "SEGMENTER_METADATA" }) {
            guard let a = SegmenterTensorsToMasks.activation(segmenterMetadata: custom.data) else {
                throw VisionTaskError.invalidModel(
                    "\(name): Invalid activation type found in CustomMetadata of ImageSegmenterOptions type.")
            }
            activation = a
        }
        if activation == .softmax && shape.channels < 2 {
            throw VisionTaskError.invalidModel("\(name): SOFTMAX activation requires channels > 1.")
        }
        try resources.requireFloat32("the image segmenter")
        self.resources = resources
        range = try resources.inputRange(default: nil)
        self.activation = activation
        output = last
        self.shape = shape
        labels = try Self.labels(resources, tensor: subgraph?.outputs.last, locale: displayNamesLocale)
    }

    /// The segmenter graph's `GetLabelItemsIfAny`: the names of the last output tensor's first
    /// `TENSOR_AXIS_LABELS` file (`LabelMap`), none when the file is missing. (A file of the display-names
    /// locale only gives display names, which the task does not return.)
    static func labels(_ resources: ModelResources, tensor: ModelMetadata.TensorMetadata?, locale: String) throws
        -> [String] {
        guard let file = tensor?.associatedFiles.first(where: { $0.type == .tensorAxisLabels }),
              resources.associatedFiles[file.name] != nil else { return [] }
        return try LabelMap.of(tensor, files: resources.associatedFiles, locale: locale,
                               model: resources.name)?.names ?? []
    }

    /// The model's input pixels for `image`: the whole image, upright (mirrored images flipped back),
    /// stretched to `width` x `height` (8-bit RGB).
    static func inputPixels(_ image: MPImage, width: Int, height: Int) -> [UInt8] {
        ImageToTensor.warp(image, roi: ImageToTensor.fullImageRoi(image),
                           flipHorizontally: image.orientation.isMirrored, width: width, height: height,
                           border: .replicate)
    }

    /// The model's input for `image`, then inference.
    private func infer(_ image: MPImage) {
        let interpreter = resources.interpreter
        let pixels = Self.inputPixels(image, width: resources.inputWidth, height: resources.inputHeight)
        interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        interpreter.invoke()
    }

    struct Masks {
        var confidence: [Mask]?
        var category: Mask?
    }

    /// The masks of `image` at `outputWidth` x `outputHeight`: MediaPipe uses the image's stored size;
    /// the tasks here pass the displayed size, so turned images give masks as displayed.
    func run(_ image: MPImage, confidence: Bool, category: Bool, outputWidth: Int, outputHeight: Int) -> Masks {
        infer(image)
        return resources.interpreter.stageOutput(output) { tensor in
            var masks = Masks()
            if confidence {
                masks.confidence = SegmenterTensorsToMasks.confidenceMasks(
                    tensor, shape: shape, activation: activation, outputWidth: outputWidth,
                    outputHeight: outputHeight
                ).map { Mask(checkedWidth: outputWidth, height: outputHeight, values: $0) }
            }
            if category {
                let bytes = SegmenterTensorsToMasks.categoryMask(tensor, shape: shape, activation: activation,
                                                                 outputWidth: outputWidth, outputHeight: outputHeight)
                masks.category = Mask(checkedWidth: outputWidth, height: outputHeight, bytes: bytes)
            }
            return masks
        }
    }

    /// The activated model output at its own size (channel `channel`), for ML Kit's raw-size mask.
    func rawConfidence(_ image: MPImage, channel: Int = 0) -> [Float] {
        infer(image)
        return resources.interpreter.stageOutput(output) { tensor in
            let masks = SegmenterTensorsToMasks.confidenceMasks(tensor, shape: shape, activation: activation,
                                                                outputWidth: shape.width, outputHeight: shape.height)
            return channel < masks.count ? masks[channel] : []
        }
    }
}
