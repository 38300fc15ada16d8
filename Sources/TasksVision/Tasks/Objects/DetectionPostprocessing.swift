import TasksVisionFormat

/// MediaPipe's `DetectionPostprocessingGraph` (mediapipe/tasks/cc/components/processors/
/// detection_postprocessing_graph.cc) for a model without non-maximum suppression inside, configured as
/// `ConfigureDetectionPostprocessingGraph` configures it from the model's metadata and the detector's
/// options: `TensorsToDetectionsCalculator` against the `DETECTOR_METADATA` anchors (YXHW boxes, the
/// options' score threshold and allow or deny list), `NonMaxSuppressionCalculator` (IoU, DEFAULT, at most
/// `maxResults`), `DetectionLabelIdToTextCalculator` with the score tensor's label map. Each check the graph
/// makes is made here when the model is loaded, with MediaPipe's texts.
struct DetectionPostprocessing {
    /// `DetectorOptions` as the object detector graph fills them.
    struct Options: Equatable {
        var maxResults = -1
        var scoreThreshold: Float = 0
        var allowlist: [String] = []
        var denylist: [String] = []
        var displayNamesLocale = "en"
        /// ObjectDetectorOptions.min_suppression_threshold's default; the iOS options do not set it.
        var minSuppressionThreshold: Float = 0.3
    }

    let decoding: TensorsToDetectionsOptions
    let anchors: [Anchor]
    /// The model outputs holding the boxes ("location") and the scores ("score").
    let boxesOutput: Int
    let scoresOutput: Int
    let labelMap: LabelMap?
    let maxResults: Int
    let suppressionThreshold: Float

    /// `SanityCheckOptions` of the graphs: MediaPipe's texts, with what was given after them.
    static func check(_ o: Options) throws {
        if o.maxResults == 0 {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.detectorMaxResultsZero + " (maxResults 0)")
        }
        if !o.allowlist.isEmpty && !o.denylist.isEmpty {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.allowAndDenyLists
                                                + " (categoryAllowlist and categoryDenylist are both set)")
        }
    }

    /// The configuration of `model` for `options`; throws what MediaPipe's graph reports, prefixed by the file.
    init(model: TFLiteModel, metadata: ModelMetadata?, files: [String: [UInt8]], options: Options) throws {
        try Self.check(options)
        let name = model.name
        func invalid(_ text: String) -> VisionTaskError { .invalidModel("\(name): INVALID_ARGUMENT: \(text)") }
        guard model.subgraphs.count == 1, let sg = model.subgraphs.first else {
            throw invalid("Expected a model with a single subgraph, found \(model.subgraphs.count).")
        }
        guard let metadata, let subgraphMetadata = metadata.subgraphs.first else {
            throw invalid("Object detection models require TFLite Model Metadata but none was found")
        }
        let outputCount = sg.outputs.count
        if outputCount == 4 {
            throw VisionTaskError.invalidModel(
                "\(name) runs non-maximum suppression inside the model (MediaPipe's in-model NMS path, the "
                + "TFLite_Detection_PostProcess op), which TasksVision does not support; export the model "
                + "without it, with DETECTOR_METADATA (as Model Maker does)")
        }
        guard outputCount == 2 else {
            throw invalid("Expected a model with 2 or 4 output tensors, found \(outputCount).")
        }
        // HasQuantizedOutputs.
        var quantized = 0
        for (i, t) in sg.outputs.enumerated() {
            guard sg.tensors.indices.contains(t) else { throw invalid("Output \(i) names no tensor.") }
            let type = sg.tensors[t].type
            guard type == .float32 || type == .uint8 else {
                throw invalid("Expected output tensor at index \(i) to have type UINT8 or FLOAT32, found "
                              + "\(type.schemaName) instead.")
            }
            if type == .uint8 { quantized += 1 }
        }
        guard quantized == 0 || quantized == outputCount else {
            throw invalid("Expected either all or none of the output tensors to be quantized, but found "
                          + "\(quantized) quantized outputs for \(outputCount) total outputs.")
        }
        let tensorsMetadata = subgraphMetadata.outputs
        guard tensorsMetadata.count == 2 else {
            throw invalid("Mismatch between number of output tensors (2) and output tensors metadata "
                          + "(\(tensorsMetadata.count)).")
        }
        // GetOutputTensorIndices: by metadata name, else 0 and 1.
        var boxes = tensorsMetadata.firstIndex { $0.name == "location" }
        var scores = tensorsMetadata.firstIndex { $0.name == "score" }
        if boxes == nil || scores == nil { (boxes, scores) = (0, 1) }
        let boxesIndex = boxes ?? 0, scoresIndex = scores ?? 1
        // GetBoundingBoxProperties of the location tensor.
        let contents = try metadataContents(model)
        let tensorName = tensorsMetadata[boxesIndex].name ?? "#0"
        let content = boxesIndex < contents.count ? contents[boxesIndex] : BoundingBoxProperties.Content(type: 0)
        guard content.type != 0 else {
            throw invalid("Expected BoundingBoxProperties for tensor \(tensorName), found none.")
        }
        guard let box = content.boundingBox else {
            throw invalid("Expected BoundingBoxProperties for tensor \(tensorName), found \(content.typeName).")
        }
        guard box.type == BoundingBoxProperties.boundaries else {
            throw invalid("Mobile SSD only supports BoundingBoxType BOUNDARIES, found \(box.typeName)")
        }
        guard box.coordinateType == BoundingBoxProperties.ratio else {
            throw invalid("Mobile SSD only supports CoordinateType RATIO, found \(box.coordinateTypeName)")
        }
        if let index = box.index, index.count != 4 {
            throw invalid("Expected BoundingBoxProperties index to contain 4 values, found \(index.count)")
        }
        // The label map of the score tensor, and the allow or deny list as its indices.
        let labelMap = try LabelMap.of(tensorsMetadata[scoresIndex], files: files,
                                       locale: options.displayNamesLocale, model: name)
        let list = options.allowlist.isEmpty ? options.denylist : options.allowlist
        if !list.isEmpty && (labelMap?.names.isEmpty ?? true) {
            throw VisionTaskError.invalidModel("\(name): \(MediaPipeErrorText.listsWithoutLabels)")
        }
        let names = labelMap?.names ?? []
        let classIndices = Set(list.compactMap { names.firstIndex(of: $0) })
        // ConfigureOutModelNmsTensorsToDetectionsCalculator and ConfigureSsdAnchorsCalculator.
        guard let detector = try metadata.objectDetectorMetadata(name: name) else {
            throw invalid("TensorsDecodingOptions is not found in the object detector metadata.")
        }
        let d = detector.decoding
        var decoding = TensorsToDetectionsOptions(numClasses: d.numClasses, numBoxes: d.numBoxes,
                                                  numCoords: d.numCoords)
        decoding.boxFormat = .yxhw
        decoding.keypointCoordOffset = d.keypointCoordOffset
        decoding.numKeypoints = d.numKeypoints
        decoding.numValuesPerKeypoint = d.numValuesPerKeypoint
        (decoding.xScale, decoding.yScale, decoding.wScale, decoding.hScale) = (d.xScale, d.yScale, d.wScale, d.hScale)
        decoding.applyExponentialOnBoxSize = d.applyExponentialOnBoxSize
        decoding.sigmoidScore = d.sigmoidScore
        // The task always sets the score threshold (0 unless given), so the metadata's never applies.
        decoding.minScoreThreshold = options.scoreThreshold
        decoding.classIndices = classIndices
        decoding.classIndicesAreAllowlist = !options.allowlist.isEmpty
        try Self.checkDecoding(decoding, anchors: detector.anchors.count, model: model, sg: sg,
                               boxes: boxesIndex, scores: scoresIndex)
        self.decoding = decoding
        anchors = detector.anchors.map { Anchor(xCenter: $0.xCenter, yCenter: $0.yCenter, width: $0.width,
                                                height: $0.height) }
        boxesOutput = boxesIndex
        scoresOutput = scoresIndex
        self.labelMap = labelMap
        maxResults = options.maxResults
        suppressionThreshold = options.minSuppressionThreshold
    }

    /// What `TensorsToDetectionsCalculator` checks when it opens and on each frame (`ABSL_CHECK`s and
    /// `RET_CHECK`s there), checked once here: the keypoint layout, the scales, the anchors and the shapes.
    static func checkDecoding(_ d: TensorsToDetectionsOptions, anchors: Int, model: TFLiteModel,
                              sg: TFLiteModel.Subgraph, boxes: Int, scores: Int) throws {
        let name = model.name
        func bad(_ what: String) -> VisionTaskError { .invalidModel("\(name): DETECTOR_METADATA \(what)") }
        guard d.numClasses > 0, d.numBoxes > 0 else {
            throw bad("has num_classes \(d.numClasses) and num_boxes \(d.numBoxes); both must be positive")
        }
        guard d.numValuesPerKeypoint == 2, d.numKeypoints >= 0, d.numKeypoints * 2 + 4 == d.numCoords else {
            throw bad("describes \(d.numKeypoints) keypoints of \(d.numValuesPerKeypoint) values in "
                      + "\(d.numCoords) coordinates; boxes take 4 and each keypoint 2")
        }
        guard d.xScale != 0, d.yScale != 0, d.wScale != 0, d.hScale != 0 else {
            throw bad("has a scale of 0 (x \(d.xScale), y \(d.yScale), w \(d.wScale), h \(d.hScale))")
        }
        guard anchors >= d.numBoxes else { throw bad("has \(anchors) anchors for \(d.numBoxes) boxes") }
        func shape(_ i: Int) -> [Int] {
            guard i < sg.outputs.count, sg.tensors.indices.contains(sg.outputs[i]) else { return [] }
            return sg.tensors[sg.outputs[i]].shape
        }
        // [1, boxes, coords] (or [1, 1, boxes, coords] as GPU delegates give them).
        func fits(_ s: [Int], _ last: Int) -> Bool {
            s == [1, d.numBoxes, last] || s == [1, 1, d.numBoxes, last]
        }
        guard fits(shape(boxes), d.numCoords) else {
            throw VisionTaskError.invalidModel("\(name): the location output has shape \(shape(boxes)); "
                                               + "DETECTOR_METADATA expects [1, \(d.numBoxes), \(d.numCoords)]")
        }
        guard fits(shape(scores), d.numClasses) else {
            throw VisionTaskError.invalidModel("\(name): the score output has shape \(shape(scores)); "
                                               + "DETECTOR_METADATA expects [1, \(d.numBoxes), \(d.numClasses)]")
        }
    }

    /// The detections of one inference's outputs: decoded, suppressed and labelled, in normalized
    /// coordinates of the model's input (before `DetectionProjectionCalculator`).
    func detections(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>)
        -> [(labels: DetectionLabels, box: RelativeBox)] {
        let decoded = TensorsToDetections.decode(boxes: boxes, scores: scores, anchors: anchors, options: decoding)
        let kept = NonMaxSuppression.suppress(decoded, threshold: suppressionThreshold, maxDetections: maxResults)
        return kept.map { (DetectionLabelIdToText.labels($0, map: labelMap), $0.box) }
    }
}

/// The content of the model's output tensors in its metadata.
private func metadataContents(_ model: TFLiteModel) throws -> [BoundingBoxProperties.Content] {
    guard let bytes = model.metadataFlatbuffer else { return [] }
    return try BoundingBoxProperties.outputContents(metadataFlatbuffer: bytes, name: "\(model.name) (TFLITE_METADATA)")
}

extension MediaPipeErrorText {
    /// The detector graphs' text (the classifier's ends with a period).
    static let detectorMaxResultsZero = "INVALID_ARGUMENT: Invalid `max_results` option: value must be != 0"
}
