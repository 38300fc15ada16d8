/// Options of a classifier head (MediaPipe's `ClassifierOptions`).
public final class ClassifierOptions: @unchecked Sendable {
    /// Locale of display names, when the model has localized ones.
    public var displayNamesLocale: String? = "en"
    /// Keep at most this many categories (-1: all).
    public var maxResults: Int = -1
    /// Drop categories scoring below this.
    public var scoreThreshold: Float = 0
    /// Keep only these category names. When both lists are given the allowlist wins and the
    /// denylist is ignored, as in MediaPipe's gesture recognizer; names the model does not have
    /// are ignored, and a list of only such names filters nothing.
    public var categoryAllowlist: [String]?
    /// Drop these category names (ignored when an allowlist is given).
    public var categoryDenylist: [String]?

    public init() {}

    public convenience init(displayNamesLocale: String? = "en", maxResults: Int = -1, scoreThreshold: Float = 0,
                            categoryAllowlist: [String]? = nil, categoryDenylist: [String]? = nil) {
        self.init()
        self.displayNamesLocale = displayNamesLocale; self.maxResults = maxResults; self.scoreThreshold = scoreThreshold
        self.categoryAllowlist = categoryAllowlist; self.categoryDenylist = categoryDenylist
    }

    func copy() -> ClassifierOptions {
        ClassifierOptions(displayNamesLocale: displayNamesLocale, maxResults: maxResults,
                          scoreThreshold: scoreThreshold,
                          categoryAllowlist: categoryAllowlist, categoryDenylist: categoryDenylist)
    }

    var allowlist: [String] { categoryAllowlist ?? [] }
    var denylist: [String] { categoryDenylist ?? [] }

    func validate(_ what: String) throws {
        if maxResults == 0 || maxResults < -1 {
            throw VisionTaskError.invalidOption("\(what): maxResults must be -1 or positive, got \(maxResults)")
        }
        if !scoreThreshold.isFinite { throw VisionTaskError.invalidOption("\(what): scoreThreshold must be finite") }
    }
}

/// The category filter of MediaPipe's `ConfigureTensorsToClassificationCalculator`
/// (`GetAllowOrDenyCategoryIndicesIfAny`): the allowlist if it is non-empty, else the denylist,
/// as label indices; unknown and repeated names are skipped, and an empty index set filters nothing.
struct CategoryFilter: Equatable {
    let indices: Set<Int>
    let isAllowlist: Bool

    init(options: ClassifierOptions, labels: [String]) {
        isAllowlist = !options.allowlist.isEmpty
        let names = isAllowlist ? options.allowlist : options.denylist
        // The first label of each name, as MediaPipe's search finds it.
        indices = Set(names.compactMap { labels.firstIndex(of: $0) })
    }

    /// `TensorsToClassificationCalculator::IsClassIndexAllowed`.
    func allows(_ index: Int) -> Bool {
        if indices.isEmpty { return true }
        return isAllowlist ? indices.contains(index) : !indices.contains(index)
    }
}

/// MediaPipe's `TensorsToClassificationCalculator` with classifier options (`TensorsToClassification`):
/// categories with labels, filtered by allow/deny list and score threshold, best first (equal scores in the
/// order MediaPipe's sort leaves them), cut to maxResults.
public enum ClassificationPostprocessing {
    public static func categories(_ scores: [Float], labels: [String], options: ClassifierOptions) -> [ResultCategory] {
        let filter = CategoryFilter(options: options, labels: labels)
        var o = TensorsToClassification.Options()
        o.topK = options.maxResults > 0 ? options.maxResults : -1
        o.minScoreThreshold = options.scoreThreshold
        o.classIndices = filter.indices
        o.isAllowlist = filter.isAllowlist
        o.labels = labels.isEmpty ? nil : LabelMap(names: labels, displayNames: nil)
        return TensorsToClassification.categories(scores, options: o)
    }
}

/// MediaPipe's `CombinedPredictionCalculator`: per classifier, the best category wins if it
/// clears its threshold, else the background ("None") entry; the first classifier with a
/// non-background winner decides, otherwise the first background winner.
public enum CombinedPrediction {
    public static let backgroundLabel = "None"

    public static func combine(_ lists: [[ResultCategory]], defaultThreshold: Float = 0) -> ResultCategory? {
        var firstBackground: ResultCategory? = nil
        for list in lists where !list.isEmpty {
            var best = ResultCategory(index: -1, score: 0)
            for c in list where best.score < c.score { best = c }
            var winner: ResultCategory? = nil
            let threshold = best.categoryName == backgroundLabel ? 0 : defaultThreshold
            if best.score >= threshold {
                winner = best
            } else if let bg = list.first(where: { $0.categoryName == backgroundLabel }) {
                winner = bg
            }
            guard let w = winner else { continue }
            let prediction = ResultCategory(index: -1, score: w.score, categoryName: w.categoryName, displayName: nil)
            if w.categoryName != backgroundLabel { return prediction }
            if firstBackground == nil { firstBackground = prediction }
        }
        return firstBackground
    }
}
