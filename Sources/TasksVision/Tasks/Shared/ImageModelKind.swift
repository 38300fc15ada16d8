import TasksVisionFormat

/// What an image model is, judged from its outputs and metadata, so that a task given a model of another kind
/// names what it was given ("an object detector") instead of failing on every image or giving nonsense. MediaPipe
/// takes any model whose tensors fit (a detector runs as a classifier of 19206 x 90 "classes").
enum ImageModelKind: Equatable {
    case classifier, detector, segmenter

    /// "an image classifier", as messages name it.
    var name: String {
        switch self {
        case .classifier: return "an image classifier"
        case .detector: return "an object detector"
        case .segmenter: return "an image segmenter"
        }
    }

    /// The task for it.
    var task: String {
        switch self {
        case .classifier: return "ImageClassifier"
        case .detector: return "ObjectDetector"
        case .segmenter: return "ImageSegmenter"
        }
    }

    /// A segmenter has `SEGMENTER_METADATA` or ends in an `[1, H, W, C]` image; a detector has `DETECTOR_METADATA`,
    /// MediaPipe's detection post-processing op, or an output of many rows (`[1, N, K]` boxes or scores); the
    /// rest is taken for a classifier (a head `[1, N]` or `[1, 1, 1, N]` per output).
    static func of(_ model: TFLiteModel, metadata: ModelMetadata?) -> ImageModelKind {
        let custom = metadata?.subgraphs.first?.customMetadata.map(\.name) ?? []
        if custom.contains("SEGMENTER_METADATA") { return .segmenter }
        if custom.contains("DETECTOR_METADATA") { return .detector }
        guard let sg = model.subgraphs.first else { return .classifier }
        let outputs = sg.outputs.compactMap { sg.tensors.indices.contains($0) ? sg.tensors[$0].shape : nil }
        if let last = outputs.last, last.count == 4, last[1] > 1, last[2] > 1 { return .segmenter }
        if outputs.contains(where: { $0.count == 3 && $0[1] > 1 }) { return .detector }
        if sg.operators.contains(where: { $0.customCode == "TFLite_Detection_PostProcess" }) { return .detector }
        return .classifier
    }

    /// The model's outputs as a message shows them: "[1, 19206, 90], [1, 19206, 4]".
    static func outputShapes(_ model: TFLiteModel) -> String {
        guard let sg = model.subgraphs.first else { return "none" }
        return sg.outputs.compactMap { sg.tensors.indices.contains($0) ? "\(sg.tensors[$0].shape)" : nil }
            .joined(separator: ", ")
    }

    /// Refuses a model of another kind than `expected` (any of them), naming what it is and the task for it;
    /// `need` is what the task takes ("an image classifier").
    static func require(_ model: TFLiteModel, metadata: ModelMetadata?, need: String,
                        accepts expected: Set<ImageModelKind>) throws {
        let kind = of(model, metadata: metadata)
        guard !expected.contains(kind) else { return }
        throw refusal(model, kind: kind, need: need)
    }

    static func refusal(_ model: TFLiteModel, kind: ImageModelKind, need: String) -> VisionTaskError {
        .invalidModel("\(model.name) is \(kind.name) (outputs \(outputShapes(model))), not \(need); use \(kind.task)")
    }
}
