import Foundation

/// MediaPipe's `ScoreCalibrationCalculator` (mediapipe/tasks/cc/components/calculators/
/// score_calibration_calculator.cc) with its configuration from a model's metadata (`ConfigureScoreCalibration`,
/// score_calibration_utils.cc): each score `x` of a head becomes `scale / (1 + exp(-(slope * g(x) + offset)))`
/// with the sigmoid of its index, where `g` is the metadata's transformation, or the default score when the
/// sigmoid has no parameters or `x` is below its `min_score`. The arithmetic is MediaPipe's, float and double
/// where it uses each.
struct ScoreCalibration: Equatable, Sendable {
    /// `ScoreTransformationType` of the metadata (IDENTITY 0, LOG 1, INVERSE_LOGISTIC 2).
    enum Transformation: UInt8, Sendable {
        case identity = 0, log = 1, inverseLogistic = 2
    }

    /// One line of the calibration file: all fields or none (an empty line).
    struct Sigmoid: Equatable, Sendable {
        var scale: Float, slope: Float, offset: Float
        var minScore: Float?
    }

    var transformation: Transformation
    var defaultScore: Float
    /// One per category; nil for an empty line.
    var sigmoids: [Sigmoid?]

    /// `kLogScoreMinimum`: keeps the logarithm away from 0.
    static let logScoreMinimum: Float = 1e-16

    /// Parses the `TENSOR_AXIS_SCORE_CALIBRATION` file: a sigmoid per line (`scale,slope,offset[,min_score]`),
    /// lines split at `\n` only, every line counted (an empty line, the last one after a final newline
    /// included, is a sigmoid without parameters). Throws MediaPipe's texts.
    init(transformation: Transformation, defaultScore: Float, file: [UInt8]) throws {
        guard !file.isEmpty else { throw Self.error("INVALID_ARGUMENT: Expected non-empty score calibration file.") }
        self.transformation = transformation
        self.defaultScore = defaultScore
        sigmoids = try file.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { bytes in
            let line = String(decoding: bytes, as: UTF8.self)
            guard !line.isEmpty else { return nil }
            let parts = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 || parts.count == 4 else {
                throw Self.error("INVALID_ARGUMENT: Expected 3 or 4 parameters per line in score calibration file, "
                                 + "got \(parts.count).")
            }
            let values = try parts.map { text -> Float in
                guard let v = Self.simpleAtof(text) else {
                    throw Self.error("INVALID_ARGUMENT: Could not parse score calibration parameter as float: "
                                     + "\(text).")
                }
                return v
            }
            guard !(values[0] < 0) else {
                throw Self.error("INVALID_ARGUMENT: The scale parameter of the sigmoids must be positive, found "
                                 + String(format: "%f", Double(values[0])) + ".")
            }
            return Sigmoid(scale: values[0], slope: values[1], offset: values[2],
                           minScore: values.count == 4 ? values[3] : nil)
        }
    }

    init(transformation: Transformation, defaultScore: Float, sigmoids: [Sigmoid?]) {
        self.transformation = transformation; self.defaultScore = defaultScore; self.sigmoids = sigmoids
    }

    /// The problem, for the task to name the model it comes from.
    struct Failure: Error { let text: String }
    static func error(_ text: String) -> Failure { Failure(text: text) }

    /// `absl::SimpleAtof`: ASCII whitespace around the number is ignored.
    static func simpleAtof(_ text: String) -> Float? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        return Float(trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed)
    }

    /// `ClampedLog`: log(x) at or above the threshold, the antisymmetric continuation below it; in double,
    /// returned as float.
    static func clampedLog(_ x: Float, _ threshold: Float) -> Float {
        if x < threshold {
            return Float(2.0 * Foundation.log(Double(threshold)) - Foundation.log(2.0 * Double(threshold) - Double(x)))
        }
        return Float(Foundation.log(Double(x)))
    }

    /// The transformation `g`.
    func transform(_ x: Float) -> Float {
        switch transformation {
        case .identity: return x
        case .log: return Self.clampedLog(x, Self.logScoreMinimum)
        case .inverseLogistic:
            // 1.0 - x is a double, passed to ClampedLog as a float.
            return Self.clampedLog(x, Self.logScoreMinimum) - Self.clampedLog(Float(1.0 - Double(x)), Self.logScoreMinimum)
        }
    }

    /// `ComputeCalibratedScore` of category `index`.
    func calibrated(_ score: Float, index: Int) -> Float {
        guard index < sigmoids.count, let s = sigmoids[index] else { return defaultScore }
        if let minimum = s.minScore, score < minimum { return defaultScore }
        let shifted = transform(score) * s.slope + s.offset
        let value: Float
        if shifted >= 0 {
            value = Float(Double(s.scale) / (1.0 + Foundation.exp(Double(-shifted))))
        } else {
            let e = Float(Foundation.exp(Double(shifted)))
            value = Float(Double(s.scale * e) / (1.0 + Double(e)))
        }
        return max(min(value, s.scale), 0)
    }

    /// The calculator's `Process` on a head of `count` scores: the file must have a sigmoid per score.
    func calibrate(_ scores: UnsafeMutableBufferPointer<Float>) throws {
        guard scores.count == sigmoids.count else {
            throw Self.error("INVALID_ARGUMENT: Mismatch between number of sigmoids (\(sigmoids.count)) and number "
                             + "of elements in the input scores tensor (\(scores.count)).")
        }
        for i in scores.indices { scores[i] = calibrated(scores[i], index: i) }
    }
}
