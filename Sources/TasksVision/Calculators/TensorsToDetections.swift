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
