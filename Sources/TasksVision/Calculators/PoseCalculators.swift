#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MediaPipe's `AlignmentPointsRectsCalculator`: a square rect centred on the first
/// alignment point, twice its distance to the second one wide (in pixels), rotated
/// so that the vector between them points at the target angle (90 degrees for pose).
public enum AlignmentPointsRects {
    public static let poseTargetAngle = Float(Double.pi * 90 / 180)

    public static func rect(center: SIMD2<Float>, scale: SIMD2<Float>, imageWidth: Int, imageHeight: Int,
                            targetAngle: Float = poseTargetAngle) -> NormalizedRect {
        let w = Float(imageWidth), h = Float(imageHeight)
        let xc = center.x * w, yc = center.y * h
        let xs = scale.x * w, ys = scale.y * h
        let size = Float(Double(((xs - xc) * (xs - xc) + (ys - yc) * (ys - yc)).squareRoot()) * 2.0)
        let rotation = normalizeRadians(targetAngle - FloatMath.atan2(-(ys - yc), xs - xc))
        return NormalizedRect(xCenter: xc / w, yCenter: yc / h, width: size / w, height: size / h, rotation: rotation)
    }
}

/// MediaPipe's `RefineLandmarksFromHeatmapCalculator`: around each landmark's heatmap
/// cell, the sigmoid-weighted mean of a kernel window replaces x and y when the
/// window's peak confidence reaches `minConfidence`.
public enum RefineLandmarksFromHeatmap {
    public static func refine(_ lms: [NormalizedLandmark], heatmap: UnsafeBufferPointer<Float>, height: Int, width: Int,
                              channels: Int,
                              kernelSize: Int = 7, minConfidence: Float = 0.5) -> [NormalizedLandmark] {
        var out = lms
        let offset = (kernelSize - 1) / 2
        for (i, lm) in lms.enumerated() where i < channels {
            guard lm.x.isFinite, lm.y.isFinite, abs(lm.x) < 1e6, abs(lm.y) < 1e6 else { continue }
            let col = Int(lm.x * Float(width)), row = Int(lm.y * Float(height))
            if col < 0 || col >= width || row < 0 || row >= height { continue }
            var sum: Float = 0, wc: Float = 0, wr: Float = 0, peak: Float = 0
            for r in max(0, row - offset)..<min(height, row + offset + 1) {
                for c in max(0, col - offset)..<min(width, col + offset + 1) {
                    let confidence = 1 / (1 + FloatMath.exp(-heatmap[(r * width + c) * channels + i]))
                    sum += confidence
                    peak = max(peak, confidence)
                    wc += Float(c) * confidence
                    wr += Float(r) * confidence
                }
            }
            if peak >= minConfidence && sum > 0 {
                out[i].x = wc / Float(width) / sum
                out[i].y = wr / Float(height) / sum
            }
        }
        return out
    }
}

/// MediaPipe's `AssociationNormRectCalculator` (pose tracking): rects from later inputs
/// replace earlier ones they overlap (axis-aligned IoU above the threshold).
public enum AssociationNormRect {
    /// The rects of `TrackIdAssociation.poses`, which carries the track IDs along.
    public static func associate(_ inputs: [[NormalizedRect]], minSimilarity: Float) -> [NormalizedRect] {
        TrackIdAssociation.poses(inputs.map { $0.map { TrackedRect(rect: $0) } }, minSimilarity: minSimilarity)
            .map(\.rect)
    }
}

/// MediaPipe's `LowPassFilter` (util/filtering), in its float arithmetic.
public struct LowPassFilter: Sendable {
    public private(set) var initialized = false
    public private(set) var rawValue: Float = 0
    public private(set) var storedValue: Float = 0

    public init() {}

    public mutating func apply(_ value: Float, alpha: Float) -> Float {
        let result: Float = initialized
            ? Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(storedValue)) : value
        initialized = true
        rawValue = value
        storedValue = result
        return result
    }
}

/// MediaPipe's `OneEuroFilter` (util/filtering/one_euro_filter.cc): an adaptive low-pass
/// filter whose cutoff grows with the (scaled) speed; the frequency is re-estimated
/// from timestamps, and the derivative is taken from the last raw value.
public struct OneEuroFilter: Sendable {
    public var frequency: Double
    public let minCutoff: Double, beta: Double, derivateCutoff: Double
    var x = LowPassFilter(), dx = LowPassFilter()
    /// Nanoseconds; MediaPipe starts at -1 ("uninitialized").
    var lastTime: Int64 = -1

    public init(frequency: Double = 30, minCutoff: Double, beta: Double, derivateCutoff: Double) {
        self.frequency = frequency; self.minCutoff = minCutoff; self.beta = beta; self.derivateCutoff = derivateCutoff
    }

    func alpha(_ cutoff: Double) -> Double {
        let te = 1.0 / frequency
        let tau = 1.0 / (2 * Double.pi * cutoff)
        return 1.0 / (1.0 + tau / te)
    }

    public mutating func apply(timestampNanoseconds t: Int64, value: Float, valueScale: Float) -> Float {
        if lastTime >= t { return value }
        // As MediaPipe: the frequency is only re-estimated when neither time is 0.
        if lastTime != 0 && t != 0 { frequency = 1.0 / (Double(t - lastTime) * 1e-9) }
        lastTime = t
        var dvalue = 0.0
        if x.initialized { dvalue = (Double(value) - Double(x.rawValue)) * Double(valueScale) * frequency }
        let edvalue = dx.apply(Float(dvalue), alpha: Float(alpha(derivateCutoff)))
        let cutoff = minCutoff + beta * abs(Double(edvalue))
        return x.apply(value, alpha: Float(alpha(cutoff)))
    }
}

/// MediaPipe's pose landmark smoothing in stream mode (pose_landmarks_detector_graph.cc):
/// visibility through a low-pass filter (alpha 0.1), then a one-euro filter per
/// coordinate; image landmarks filtered in pixels and scaled by the object size
/// (min cutoff 0.05, beta 80), world landmarks unscaled (0.1, 40); derivative cutoff 1.
public struct PoseLandmarkSmoother: Sendable {
    var visibility: [LowPassFilter] = []
    var worldVisibility: [LowPassFilter] = []
    var filters: [OneEuroFilter] = []
    var worldFilters: [OneEuroFilter] = []

    public init() {}

    public mutating func reset() { self = PoseLandmarkSmoother() }

    /// A frame without a pose. In MediaPipe's graph only the image-landmark filter runs on such
    /// a frame (the image size reaches it every frame) and resets; the visibility filters and the
    /// world-landmark filter receive no packet, so they keep their state and resume from it, with
    /// the frequency taken from the time since the last pose.
    public mutating func poseLost() {
        filters = []
    }

    public mutating func smooth(_ lms: [NormalizedLandmark], world: [Landmark], roi: NormalizedRect, imageWidth: Int,
                                imageHeight: Int,
                                timestampMicroseconds: Int64) -> ([NormalizedLandmark], [Landmark]) {
        let t = timestampMicroseconds * 1000
        if visibility.count != lms.count { visibility = Array(repeating: LowPassFilter(), count: lms.count) }
        if filters.count != lms.count * 3 {
            filters = Array(repeating: OneEuroFilter(minCutoff: 0.05, beta: 80, derivateCutoff: 1),
                            count: lms.count * 3)
        }
        if worldVisibility.count != world.count {
            worldVisibility = Array(repeating: LowPassFilter(), count: world.count)
            worldFilters = Array(repeating: OneEuroFilter(minCutoff: 0.1, beta: 40, derivateCutoff: 1),
                                 count: world.count * 3)
        }
        let W = Float(imageWidth), H = Float(imageHeight)
        var out = lms
        let objectScale = (roi.width * W + roi.height * H) / 2
        for i in lms.indices {
            if let v = lms[i].visibility { out[i].visibility = visibility[i].apply(v, alpha: 0.1) }
        }
        if objectScale >= 1e-6 {
            let scale = 1 / objectScale
            for i in lms.indices {
                out[i].x = filters[3 * i].apply(timestampNanoseconds: t, value: lms[i].x * W, valueScale: scale) / W
                out[i].y = filters[3 * i + 1].apply(timestampNanoseconds: t, value: lms[i].y * H, valueScale: scale) / H
                out[i].z = filters[3 * i + 2].apply(timestampNanoseconds: t, value: lms[i].z * W, valueScale: scale) / W
            }
        }
        var outWorld = world
        for i in world.indices {
            if let v = world[i].visibility { outWorld[i].visibility = worldVisibility[i].apply(v, alpha: 0.1) }
            outWorld[i].x = worldFilters[3 * i].apply(timestampNanoseconds: t, value: world[i].x, valueScale: 1)
            outWorld[i].y = worldFilters[3 * i + 1].apply(timestampNanoseconds: t, value: world[i].y, valueScale: 1)
            outWorld[i].z = worldFilters[3 * i + 2].apply(timestampNanoseconds: t, value: world[i].z, valueScale: 1)
        }
        return (out, outWorld)
    }
}
