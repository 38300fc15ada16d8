/// MediaPipe's `TensorsToClassificationCalculator` (mediapipe/calculators/tensor/
/// tensors_to_classification_calculator.cc) as the classification postprocessing graph configures it
/// (`ConfigureTensorsToClassificationCalculator`): one head's scores into categories, filtered by the allow or
/// ignore set and the score threshold, with their label and display name, sorted best first.
///
/// The sort is MediaPipe's: `std::partial_sort` of the first `topK` when `topK` > 0 (the rest dropped), else
/// `std::sort` of all, by score only; both as libc++ orders equal scores (`LibcxxSort`).
enum TensorsToClassification {
    struct Options: Equatable {
        /// Keep the best `topK` (> 0), or all (<= 0).
        var topK = -1
        /// Scores below it are dropped (`min_score_threshold`; -Float.greatestFiniteMagnitude when unset).
        var minScoreThreshold = -Float.greatestFiniteMagnitude
        /// `allow_classes` (when `isAllowlist`) or `ignore_classes`; empty filters nothing.
        var classIndices: Set<Int> = []
        var isAllowlist = false
        /// Names and display names by index (`label_items`); nil without a label map.
        var labels: LabelMap?
        /// `sort_by_descending_score` (always set by the tasks).
        var sortByDescendingScore = true
    }

    /// `IsClassIndexAllowed`.
    static func allows(_ index: Int, _ options: Options) -> Bool {
        if options.classIndices.isEmpty { return true }
        return options.isAllowlist == options.classIndices.contains(index)
    }

    /// The categories of `scores`, in MediaPipe's order.
    static func categories(_ scores: UnsafeBufferPointer<Float>, options: Options) -> [ResultCategory] {
        var out: [ResultCategory] = []
        out.reserveCapacity(scores.count)
        for i in 0..<scores.count where allows(i, options) && !(scores[i] < options.minScoreThreshold) {
            var c = ResultCategory(index: i, score: scores[i])
            if let labels = options.labels, i < labels.names.count {
                c.categoryName = labels.names[i]
                c.displayName = labels.displayNames?[i]
            }
            out.append(c)
        }
        let descending = { (a: ResultCategory, b: ResultCategory) in a.score > b.score }
        if options.topK > 0 {
            let keep = min(out.count, options.topK)
            LibcxxSort.partialSort(&out, middle: keep, by: descending)
            if out.count > keep { out.removeSubrange(keep...) }
        } else if options.sortByDescendingScore {
            LibcxxSort.sort(&out, by: descending)
        }
        return out
    }

    static func categories(_ scores: [Float], options: Options) -> [ResultCategory] {
        scores.withUnsafeBufferPointer { categories($0, options: options) }
    }
}
