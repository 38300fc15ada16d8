#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A detection in normalized coordinates, before conversion to a task result.
public struct RawDetection: Sendable, Equatable {
    public var score: Float
    public var classId: Int
    public var box: RelativeBox
    /// Keypoints as (x, y).
    public var keypoints: [SIMD2<Float>]
}

/// Decoding options of MediaPipe's `TensorsToDetectionsCalculator` with `reverse_output_order` (XYWH boxes).
public struct DetectionDecoding: Sendable, Equatable {
    public var numBoxes: Int
    public var numCoords: Int
    public var keypointOffset = 4
    public var numKeypoints: Int
    public var valuesPerKeypoint = 2
    public var scale: Float
    public var scoreClipping: Float = 100
    public var minScore: Float

    public static func faceShortRange(minScore: Float) -> Self {
        .init(numBoxes: 896, numCoords: 16, numKeypoints: 6, scale: 128, minScore: minScore)
    }
    public static func faceFullRange(minScore: Float) -> Self {
        .init(numBoxes: 2304, numCoords: 16, numKeypoints: 6, scale: 192, minScore: minScore)
    }
    public static func palm(minScore: Float) -> Self {
        .init(numBoxes: 2016, numCoords: 18, numKeypoints: 7, scale: 192, minScore: minScore)
    }
    public static func pose(minScore: Float) -> Self {
        .init(numBoxes: 2254, numCoords: 12, numKeypoints: 4, scale: 224, minScore: minScore)
    }
}

/// MediaPipe's `TensorsToDetectionsCalculator` (CPU path, one class, sigmoid scores).
public enum TensorsToDetections {
    /// Decodes raw box regressors and score logits against the anchors, keeping detections scoring at least `minScore`.
    public static func decode(boxes raw: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>,
                              anchors: [Anchor],
                              options o: DetectionDecoding) -> [RawDetection] {
        var out: [RawDetection] = []
        let n = min(o.numBoxes, anchors.count, scores.count, raw.count / max(o.numCoords, 1))
        for i in 0..<n {
            var logit = scores[i]
            logit = logit < -o.scoreClipping ? -o.scoreClipping : logit
            logit = logit > o.scoreClipping ? o.scoreClipping : logit
            let score = 1 / (1 + FloatMath.exp(-logit))
            if score < o.minScore { continue }
            let a = anchors[i]
            let b = i * o.numCoords
            let xc = raw[b] / o.scale * a.width + a.xCenter
            let yc = raw[b + 1] / o.scale * a.height + a.yCenter
            let w = raw[b + 2] / o.scale * a.width
            let h = raw[b + 3] / o.scale * a.height
            let ymin = yc - h / 2, xmin = xc - w / 2, ymax = yc + h / 2, xmax = xc + w / 2
            let box = RelativeBox(xmin: xmin, ymin: ymin, width: xmax - xmin, height: ymax - ymin)
            if box.width < 0 || box.height < 0 || box.width.isNaN || box.height.isNaN { continue }
            var kps: [SIMD2<Float>] = []
            for k in 0..<o.numKeypoints {
                let off = b + o.keypointOffset + k * o.valuesPerKeypoint
                kps.append(SIMD2(raw[off] / o.scale * a.width + a.xCenter,
                                 raw[off + 1] / o.scale * a.height + a.yCenter))
            }
            out.append(RawDetection(score: score, classId: 0, box: box, keypoints: kps))
        }
        return out
    }
}

/// The general options of MediaPipe's `TensorsToDetectionsCalculator` for a model without
/// post-processing inside (raw boxes and per-class scores, decoded against anchors), as an object
/// detector's `DETECTOR_METADATA` and the task's options configure it.
public struct TensorsToDetectionsOptions: Sendable, Equatable {
    /// How the four box values of each anchor are laid out.
    public enum BoxFormat: Sendable { case yxhw, xywh, xyxy }

    public var numClasses: Int
    public var numBoxes: Int
    public var numCoords: Int
    public var boxFormat: BoxFormat = .yxhw
    public var boxCoordOffset = 0
    public var keypointCoordOffset = 0
    public var numKeypoints = 0
    public var numValuesPerKeypoint = 2
    public var xScale: Float = 0, yScale: Float = 0, wScale: Float = 0, hScale: Float = 0
    public var applyExponentialOnBoxSize = false
    public var sigmoidScore = false
    /// Logits are clipped to [-c, c] before the sigmoid when set.
    public var scoreClippingThreshold: Float?
    /// A class's score below this is dropped when set.
    public var minScoreThreshold: Float?
    /// The class indices allowed (allowlist) or ignored (otherwise); empty filters nothing.
    public var classIndices: Set<Int> = []
    public var classIndicesAreAllowlist = false

    public init(numClasses: Int, numBoxes: Int, numCoords: Int) {
        self.numClasses = numClasses; self.numBoxes = numBoxes; self.numCoords = numCoords
    }

    /// `IsClassIndexAllowed`.
    @inline(__always) func allows(_ index: Int) -> Bool {
        if classIndices.isEmpty { return true }
        return classIndicesAreAllowlist ? classIndices.contains(index) : !classIndices.contains(index)
    }
}

extension TensorsToDetections {
    /// `ProcessCPU` for two tensors with anchors: each box decoded (`DecodeBoxes`), its best allowed class
    /// found (first of equal scores), then `ConvertToDetections`: dropped when the class is filtered, when
    /// its score is below the threshold, or when the box has a negative or NaN size. `boxes` holds
    /// `numBoxes x numCoords` values, `scores` `numBoxes x numClasses`; the caller checks the sizes.
    public static func decode(boxes raw: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>,
                              anchors: [Anchor], options o: TensorsToDetectionsOptions) -> [RawDetection] {
        let n = min(o.numBoxes, anchors.count, raw.count / max(o.numCoords, 1),
                    scores.count / max(o.numClasses, 1))
        var out: [RawDetection] = []
        let filtered = !o.classIndices.isEmpty
        for i in 0..<n {
            // The best allowed class: the first strictly greater score wins.
            var classId = -1
            var maxScore = -Float.greatestFiniteMagnitude
            let row = i * o.numClasses
            for c in 0..<o.numClasses {
                if filtered && !o.allows(c) { continue }
                var score = scores[row + c]
                if o.sigmoidScore {
                    if let clip = o.scoreClippingThreshold {
                        score = score < -clip ? -clip : score
                        score = score > clip ? clip : score
                    }
                    score = 1 / (1 + FloatMath.exp(-score))
                }
                if maxScore < score { maxScore = score; classId = c }
            }
            if !o.allows(classId) { continue }
            if let t = o.minScoreThreshold, maxScore < t { continue }
            let a = anchors[i]
            let b = i * o.numCoords + o.boxCoordOffset
            var yc: Float, xc: Float, h: Float, w: Float
            switch o.boxFormat {
            case .yxhw: (yc, xc, h, w) = (raw[b], raw[b + 1], raw[b + 2], raw[b + 3])
            case .xywh: (xc, yc, w, h) = (raw[b], raw[b + 1], raw[b + 2], raw[b + 3])
            case .xyxy:
                xc = (-raw[b] + raw[b + 2]) / 2
                yc = (-raw[b + 1] + raw[b + 3]) / 2
                w = raw[b + 2] + raw[b]
                h = raw[b + 3] + raw[b + 1]
            }
            xc = xc / o.xScale * a.width + a.xCenter
            yc = yc / o.yScale * a.height + a.yCenter
            if o.applyExponentialOnBoxSize {
                h = FloatMath.exp(h / o.hScale) * a.height
                w = FloatMath.exp(w / o.wScale) * a.width
            } else {
                h = h / o.hScale * a.height
                w = w / o.wScale * a.width
            }
            let ymin = yc - h / 2, xmin = xc - w / 2, ymax = yc + h / 2, xmax = xc + w / 2
            let box = RelativeBox(xmin: xmin, ymin: ymin, width: xmax - xmin, height: ymax - ymin)
            if box.width < 0 || box.height < 0 || box.width.isNaN || box.height.isNaN { continue }
            var keypoints: [SIMD2<Float>] = []
            if o.numKeypoints > 0 {
                keypoints.reserveCapacity(o.numKeypoints)
                for k in 0..<o.numKeypoints {
                    let off = i * o.numCoords + o.keypointCoordOffset + k * o.numValuesPerKeypoint
                    let (kx, ky) = o.boxFormat == .yxhw ? (raw[off + 1], raw[off]) : (raw[off], raw[off + 1])
                    keypoints.append(SIMD2(kx / o.xScale * a.width + a.xCenter, ky / o.yScale * a.height + a.yCenter))
                }
            }
            out.append(RawDetection(score: maxScore, classId: classId, box: box, keypoints: keypoints))
        }
        return out
    }
}
