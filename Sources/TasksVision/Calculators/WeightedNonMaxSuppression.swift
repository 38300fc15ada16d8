/// MediaPipe's `NonMaxSuppressionCalculator` with the WEIGHTED algorithm and
/// intersection-over-union overlap: the top detection absorbs every remaining one
/// that overlaps it by more than the threshold; box and keypoints become the
/// score-weighted mean of the group, and the score stays the top one's.
public enum WeightedNonMaxSuppression {
    /// IoU of two normalized boxes, as MediaPipe's `OverlapSimilarity`.
    public static func iou(_ r1: RelativeBox, _ r2: RelativeBox) -> Float {
        let r1xmax = r1.xmin + r1.width, r1ymax = r1.ymin + r1.height
        let r2xmax = r2.xmin + r2.width, r2ymax = r2.ymin + r2.height
        // Rectangle_f::Intersects: no overlap when one lies strictly beside the other.
        if r1xmax < r2.xmin || r2xmax < r1.xmin || r1ymax < r2.ymin || r2ymax < r1.ymin { return 0 }
        let ix = max(0, min(r1xmax, r2xmax) - max(r1.xmin, r2.xmin))
        let iy = max(0, min(r1ymax, r2ymax) - max(r1.ymin, r2.ymin))
        let intersection = ix * iy
        let normalization = r1.width * r1.height + r2.width * r2.height - intersection
        return normalization > 0 ? intersection / normalization : 0
    }

    public static func suppress(_ detections: [RawDetection], threshold: Float,
                                maxDetections: Int = -1) -> [RawDetection] {
        // Stable sort by descending score (ties keep decoding order).
        var remaining = detections.indices.sorted {
            detections[$0].score > detections[$1].score || (detections[$0].score == detections[$1].score && $0 < $1)
        }
        var output: [RawDetection] = []
        while !remaining.isEmpty {
            let top = detections[remaining[0]]
            var candidates: [Int] = [], rest: [Int] = []
            for i in remaining {
                if iou(detections[i].box, top.box) > threshold { candidates.append(i) } else { rest.append(i) }
            }
            var weighted = top
            if !candidates.isEmpty {
                var total: Float = 0, xmin: Float = 0, ymin: Float = 0, xmax: Float = 0, ymax: Float = 0
                var kps = [SIMD2<Float>](repeating: .zero, count: top.keypoints.count)
                for c in candidates {
                    let d = detections[c], s = d.score
                    total += s
                    xmin += d.box.xmin * s
                    ymin += d.box.ymin * s
                    xmax += (d.box.xmin + d.box.width) * s
                    ymax += (d.box.ymin + d.box.height) * s
                    for k in 0..<min(kps.count, d.keypoints.count) {
                        kps[k].x += d.keypoints[k].x * s
                        kps[k].y += d.keypoints[k].y * s
                    }
                }
                weighted.box.xmin = xmin / total
                weighted.box.ymin = ymin / total
                weighted.box.width = xmax / total - weighted.box.xmin
                weighted.box.height = ymax / total - weighted.box.ymin
                weighted.keypoints = kps.map { SIMD2($0.x / total, $0.y / total) }
            }
            output.append(weighted)
            if maxDetections > 0 && output.count >= maxDetections { break }
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }
}
