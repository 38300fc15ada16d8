/// MediaPipe's `NonMaxSuppressionCalculator` (calculators/util/non_max_suppression_calculator.cc) with
/// the DEFAULT algorithm, as the object detector configures it: detections by decreasing score
/// (`std::sort`, so equal scores in libc++'s order), each kept unless a kept one overlaps it by more
/// than the threshold, until `maxDetections` are kept. (The WEIGHTED algorithm is
/// `WeightedNonMaxSuppression`.)
public enum NonMaxSuppression {
    /// `NonMaxSuppressionCalculatorOptions.OverlapType`.
    public enum OverlapType: Sendable {
        case jaccard, modifiedJaccard, intersectionOverUnion
    }

    /// `OverlapSimilarity(type, rect1, rect2)` of two boxes as `Rectangle_f`s (min corner, and max corner
    /// computed as min + size), in float as MediaPipe computes it.
    public static func similarity(_ type: OverlapType, _ r1: RelativeBox, _ r2: RelativeBox) -> Float {
        let ax0 = r1.xmin, ay0 = r1.ymin, ax1 = r1.xmin + r1.width, ay1 = r1.ymin + r1.height
        let bx0 = r2.xmin, by0 = r2.ymin, bx1 = r2.xmin + r2.width, by1 = r2.ymin + r2.height
        // Rectangle::Intersects: neither empty, neither strictly beside the other.
        if ax0 > ax1 || ay0 > ay1 || bx0 > bx1 || by0 > by1 { return 0 }
        if bx1 < ax0 || ax1 < bx0 || by1 < ay0 || ay1 < by0 { return 0 }
        // Rectangle::Intersect: an empty rectangle when the corners cross, whose area (min corner FLT_MAX,
        // max corner -FLT_MAX) is infinite.
        let ix0 = max(ax0, bx0), iy0 = max(ay0, by0), ix1 = min(ax1, bx1), iy1 = min(ay1, by1)
        let intersection: Float = (ix0 > ix1 || iy0 > iy1) ? .infinity : (ix1 - ix0) * (iy1 - iy0)
        let area1 = (ax1 - ax0) * (ay1 - ay0), area2 = (bx1 - bx0) * (by1 - by0)
        let normalization: Float
        switch type {
        case .jaccard:
            normalization = (max(ax1, bx1) - min(ax0, bx0)) * (max(ay1, by1) - min(ay0, by0))
        case .modifiedJaccard: normalization = area2
        case .intersectionOverUnion: normalization = area1 + area2 - intersection
        }
        return normalization > 0 ? intersection / normalization : 0
    }

    /// The detections kept, in MediaPipe's order. `maxDetections` -1 keeps all; `minScore` stops the walk
    /// at the first lower score when positive (the calculator's `min_score_threshold`, default -1).
    public static func suppress(_ detections: [RawDetection], threshold: Float,
                                overlap: OverlapType = .intersectionOverUnion,
                                maxDetections: Int = -1, minScore: Float = -1) -> [RawDetection] {
        guard !detections.isEmpty else { return [] }
        // GetIndexedScores: (index, score) pairs sorted by decreasing score.
        var indexed = detections.enumerated().map { (index: $0.offset, score: $0.element.score) }
        LibcxxSort.sort(&indexed) { $0.score > $1.score }
        let limit = maxDetections > -1 ? maxDetections : indexed.count
        var kept: [RawDetection] = []
        guard limit > 0 else { return kept }
        kept.reserveCapacity(min(limit, 256))
        // Only overlapping boxes can suppress (the similarity of disjoint ones is 0), so with a threshold of
        // 0 or more the kept boxes are looked up in a grid of the cells they cover; the answer is the same.
        var grid = threshold >= 0 ? Grid() : nil
        for (index, score) in indexed {
            if minScore > 0 && score < minScore { break }
            let d = detections[index]
            var suppressed = false
            if let g = grid, Grid.isFinite(d.box) {
                suppressed = g.anyCandidate(overlapping: d.box) { similarity(overlap, kept[$0].box, d.box) > threshold }
            } else {
                suppressed = kept.contains { similarity(overlap, $0.box, d.box) > threshold }
            }
            if !suppressed {
                grid?.insert(d.box, index: kept.count)
                kept.append(d)
            }
            if kept.count >= limit { break }
        }
        return kept
    }

    /// A uniform grid over [0, 1] x [0, 1] (boxes beyond it fall in the border cells) holding the indices of
    /// the kept boxes in every cell a box covers. Two boxes with a common point share a cell.
    struct Grid {
        static let side = 16
        private var cells = [[Int]](repeating: [], count: side * side)
        /// Kept boxes spanning many cells are kept aside and always checked.
        private var wide: [Int] = []

        static func range(_ lo: Float, _ hi: Float) -> ClosedRange<Int> {
            func cell(_ v: Float) -> Int {
                let s = v * Float(side)
                if !(s >= 0) { return 0 }  // also NaN
                if s >= Float(side - 1) { return side - 1 }
                return Int(s)
            }
            return cell(lo)...cell(hi)
        }

        static func isFinite(_ b: RelativeBox) -> Bool {
            b.xmin.isFinite && b.ymin.isFinite && (b.xmin + b.width).isFinite && (b.ymin + b.height).isFinite
        }

        mutating func insert(_ b: RelativeBox, index: Int) {
            guard Self.isFinite(b) else { wide.append(index); return }
            let xs = Self.range(b.xmin, b.xmin + b.width), ys = Self.range(b.ymin, b.ymin + b.height)
            if xs.count * ys.count > 16 { wide.append(index); return }
            for y in ys { for x in xs { cells[y * Self.side + x].append(index) } }
        }

        /// Whether `test` holds for a kept box sharing a cell with `b` (or a wide one), each tested once at most.
        func anyCandidate(overlapping b: RelativeBox, _ test: (Int) -> Bool) -> Bool {
            for i in wide where test(i) { return true }
            let xs = Self.range(b.xmin, b.xmin + b.width), ys = Self.range(b.ymin, b.ymin + b.height)
            for y in ys {
                for x in xs {
                    for i in cells[y * Self.side + x] where test(i) { return true }
                }
            }
            return false
        }
    }
}
