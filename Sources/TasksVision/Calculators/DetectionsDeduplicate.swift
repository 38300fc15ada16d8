/// A box in whole pixels (MediaPipe's `LocationData::BoundingBox`).
public struct PixelBox: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// `DetectionTransformationCalculator`'s conversion of a normalized box to pixels of a `width` x `height` image.
    init(_ b: RelativeBox, width: Int, height: Int) {
        x = DetectionTransformation.bounded(b.xmin * Float(width), width)
        y = DetectionTransformation.bounded(b.ymin * Float(height), height)
        self.width = DetectionTransformation.bounded(b.width * Float(width), width)
        self.height = DetectionTransformation.bounded(b.height * Float(height), height)
    }
}

/// MediaPipe's `DetectionsDeduplicateCalculator` (calculators/util/detections_deduplicate_calculator.cc):
/// a detection whose pixel box equals an earlier one's is merged into it (its scores, label ids, labels and
/// display names appended), keeping the first one's place.
enum DetectionsDeduplicate {
    static func deduplicate(_ detections: [(labels: DetectionLabels, box: PixelBox)])
        -> [(labels: DetectionLabels, box: PixelBox)] {
        var out: [(labels: DetectionLabels, box: PixelBox)] = []
        var first: [PixelBox: Int] = [:]
        for d in detections {
            if let i = first[d.box] {
                out[i].labels.scores += d.labels.scores
                out[i].labels.labels += d.labels.labels
                out[i].labels.labelIds += d.labels.labelIds
                out[i].labels.displayNames += d.labels.displayNames
            } else {
                first[d.box] = out.count
                out.append(d)
            }
        }
        return out
    }
}
