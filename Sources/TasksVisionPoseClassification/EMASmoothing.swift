/// Smooths a stream of classification results with an exponential moving average over a window
/// (ML Kit's `EMASmoothing`). Time is an input: ML Kit reads the clock, which would make a video's
/// results depend on how fast it is processed.
public struct EMASmoothing: Sendable {
    /// ML Kit's window: the last 10 results.
    public static let defaultWindowSize = 10
    /// ML Kit's alpha: each older result weighs 0.8 times the next newer one.
    public static let defaultAlpha: Float = 0.2
    /// ML Kit's reset: inputs more than 100 ms apart start a new window.
    public static let defaultResetThresholdMilliseconds: Int64 = 100

    /// The number of latest results averaged.
    public let windowSize: Int
    /// Each older result weighs (1 - alpha) times the next newer one.
    public let alpha: Float
    /// Inputs further apart than this (in milliseconds) restart the window.
    public let resetThresholdMilliseconds: Int64
    /// The window, newest first.
    private var window: [ClassificationResult] = []
    private var lastInputMilliseconds: Int64 = 0

    /// Throws if the window is under 1 (ML Kit's deque refuses it).
    public init(windowSize: Int = EMASmoothing.defaultWindowSize, alpha: Float = EMASmoothing.defaultAlpha,
                resetThresholdMilliseconds: Int64 = EMASmoothing.defaultResetThresholdMilliseconds) throws {
        guard windowSize >= 1 else { throw PoseClassificationError.invalidSetting("windowSize", "at least 1") }
        self.windowSize = windowSize
        self.alpha = alpha
        self.resetThresholdMilliseconds = resetThresholdMilliseconds
    }

    /// Adds a result taken at `timestampInMilliseconds` (ML Kit's `SystemClock.elapsedRealtime()`,
    /// starting from 0) and returns the smoothed result: per class seen in the window,
    /// sum(factor * confidence) / sum(factor), the factor starting at 1 for the newest and
    /// multiplied by (1 - alpha) in double for each older one.
    public mutating func smoothedResult(_ result: ClassificationResult,
                                        timestampInMilliseconds now: Int64) -> ClassificationResult {
        if now &- lastInputMilliseconds > resetThresholdMilliseconds { window.removeAll() }
        lastInputMilliseconds = now
        if window.count == windowSize { window.removeLast() }
        window.insert(result, at: 0)

        var allClasses = JavaHashOrder()
        for r in window {
            for c in r.allClasses { allClasses.insert(c) }
        }
        var smoothed = ClassificationResult()
        let decay = 1.0 - Double(alpha)
        for className in allClasses.iterationOrder {
            var factor: Float = 1, topSum: Float = 0, bottomSum: Float = 0
            for r in window {
                let value = r.classConfidence(className)
                topSum += factor * value
                bottomSum += factor
                factor = Float(Double(factor) * decay)
            }
            smoothed.putClassConfidence(className, topSum / bottomSum)
        }
        return smoothed
    }
}
