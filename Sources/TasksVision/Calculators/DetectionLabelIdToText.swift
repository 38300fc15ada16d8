/// What a MediaPipe `Detection` proto carries for its categories: parallel lists that calculators append to
/// independently (so after a merge they may differ in length, and `categories` pairs them by position).
public struct DetectionLabels: Sendable, Equatable {
    public var scores: [Float]
    public var labelIds: [Int]
    public var labels: [String]
    public var displayNames: [String]

    public init(scores: [Float], labelIds: [Int], labels: [String] = [], displayNames: [String] = []) {
        self.scores = scores; self.labelIds = labelIds; self.labels = labels; self.displayNames = displayNames
    }

    /// `ConvertToDetection` of the task's result: one category per score, the label id at the same position
    /// (or -1), the name and display name at the same position (or nil, as MediaPipe's iOS API gives them).
    public var categories: [ResultCategory] {
        scores.indices.map { i in
            ResultCategory(index: i < labelIds.count ? labelIds[i] : -1, score: scores[i],
                           categoryName: i < labels.count ? labels[i] : nil,
                           displayName: i < displayNames.count ? displayNames[i] : nil)
        }
    }
}

/// MediaPipe's `DetectionLabelIdToTextCalculator` (calculators/util/detection_label_id_to_text_calculator.cc)
/// with the label items of a model's label map: each label id the map knows adds its name, and its display
/// name when the map has display names; a detection that got a name loses its label ids (`keep_label_id`
/// false).
enum DetectionLabelIdToText {
    static func labels(_ d: RawDetection, map: LabelMap?) -> DetectionLabels {
        var out = DetectionLabels(scores: [d.score], labelIds: [d.classId])
        guard let map else { return out }
        var hasText = false
        for id in out.labelIds where id >= 0 && id < map.names.count {
            out.labels.append(map.names[id])
            if let display = map.displayNames, id < display.count { out.displayNames.append(display[id]) }
            hasText = true
        }
        if hasText { out.labelIds = [] }
        return out
    }
}
