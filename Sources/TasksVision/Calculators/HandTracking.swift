/// MediaPipe's `HandAssociationCalculator`: keeps every tracked rect, then adds each new
/// rect whose axis-aligned IoU with all kept rects is at most the threshold.
public enum HandAssociation {
    /// IoU of two normalized rects, rotation ignored (`rectangle_util.cc`).
    public static func iou(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
        let r1 = RelativeBox(xmin: a.xCenter - Float(Double(a.width) / 2.0),
                             ymin: a.yCenter - Float(Double(a.height) / 2.0), width: a.width, height: a.height)
        let r2 = RelativeBox(xmin: b.xCenter - Float(Double(b.width) / 2.0),
                             ymin: b.yCenter - Float(Double(b.height) / 2.0), width: b.width, height: b.height)
        return WeightedNonMaxSuppression.iou(r1, r2)
    }

    /// The rects of `TrackIdAssociation.hands`, which carries the track IDs along.
    public static func associate(tracked: [NormalizedRect], detected: [NormalizedRect],
                                 minSimilarity: Float) -> [NormalizedRect] {
        TrackIdAssociation.hands(tracked: tracked.map { TrackedRect(rect: $0) }, detected: detected,
                                 minSimilarity: minSimilarity).map(\.rect)
    }
}

/// MediaPipe's `HandLandmarksDeduplicationCalculator`: a hand is dropped when at least 10
/// of its 21 landmarks lie within 0.2 of the larger hand's baseline of a kept hand and
/// their landmark bounding boxes overlap with IoU above 0.2. Hands are taken in order.
public enum HandDeduplication {
    static func distance(_ a: NormalizedLandmark, _ b: NormalizedLandmark, _ w: Int, _ h: Int) -> Float {
        let dx = (a.x - b.x) * Float(w), dy = (a.y - b.y) * Float(h)
        return Float((Double(dx) * Double(dx) + Double(dy) * Double(dy)).squareRoot())
    }

    static func baseline(_ l: [NormalizedLandmark], _ w: Int, _ h: Int) -> Float {
        max(distance(l[0], l[5], w, h), distance(l[5], l[17], w, h), distance(l[17], l[0], w, h))
    }

    static func bounds(_ l: [NormalizedLandmark]) -> (left: Float, top: Float, right: Float, bottom: Float) {
        var r = (left: Float.greatestFiniteMagnitude, top: Float.greatestFiniteMagnitude,
                 right: -Float.greatestFiniteMagnitude, bottom: -Float.greatestFiniteMagnitude)
        for p in l {
            r.left = min(r.left, p.x); r.top = min(r.top, p.y); r.right = max(r.right, p.x);
            r.bottom = max(r.bottom, p.y)
        }
        return r
    }

    static func iou(_ a: (left: Float, top: Float, right: Float, bottom: Float),
                    _ b: (left: Float, top: Float, right: Float, bottom: Float)) -> Float {
        let iw = min(a.right, b.right) - max(a.left, b.left), ih = min(a.bottom, b.bottom) - max(a.top, b.top)
        guard iw > 0, ih > 0 else { return 0 }
        let inter = iw * ih
        let union = (a.right - a.left) * (a.bottom - a.top) + (b.right - b.left) * (b.bottom - b.top) - inter
        return union > 0 ? inter / union : 0
    }

    /// Indices of the hands to keep, in order.
    public static func kept(_ hands: [[NormalizedLandmark]], imageWidth w: Int, imageHeight h: Int) -> [Int] {
        let baselines = hands.map { baseline($0, w, h) }
        let boxes = hands.map(bounds)
        var retained: [Int] = []
        for i in hands.indices {
            let suppressed = retained.contains { j in
                let threshold = max(baselines[i], baselines[j]) * 0.2
                let matched = zip(hands[i], hands[j]).filter { distance($0, $1, w, h) < threshold }.count
                return matched >= 10 && iou(boxes[i], boxes[j]) > 0.2
            }
            if !suppressed { retained.append(i) }
        }
        return retained
    }
}
