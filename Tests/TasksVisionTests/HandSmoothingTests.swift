import Foundation
@testable import TasksVision
import XCTest

/// Hand landmark smoothing on the hand sequence: less jitter where the hand is still, little lag
/// where it moves; off by default.
final class HandSmoothingTests: XCTestCase {
    /// Per frame, the 21 landmarks in pixels of the first hand (nil where none).
    func track(smooth: Bool) throws -> (image: [[SIMD2<Float>]?], world: [[SIMD3<Float>]?]) {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try Paths.model("hand_landmarker.task")
        options.runningMode = .video
        options.smoothLandmarks = smooth
        let landmarker = try HandLandmarker(options: options)
        var image: [[SIMD2<Float>]?] = [], world: [[SIMD3<Float>]?] = []
        for i in 0..<40 {
            let frame = try TestImages.load(Paths.sequences + "/hand_asl_1/" + String(format: "%04d.png", i))
            let r = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: i * 40)
            image.append(r.landmarks.first?.map { SIMD2($0.x * Float(frame.width), $0.y * Float(frame.height)) })
            world.append(r.worldLandmarks.first?.map { SIMD3($0.x, $0.y, $0.z) })
        }
        return (image, world)
    }

    /// Mean length of the second difference x[t+1] - 2x[t] + x[t-1] over the frames `range` (interior).
    static func jitter<V: SIMD>(_ frames: [[V]], _ range: Range<Int>) -> Float where V.Scalar == Float {
        var sum: Float = 0, n = 0
        for t in (range.lowerBound + 1)..<(range.upperBound - 1) {
            for (a, (b, c)) in zip(frames[t - 1], zip(frames[t], frames[t + 1])) {
                let d = a - 2 * b + c
                sum += (d * d).sum().squareRoot(); n += 1
            }
        }
        return sum / Float(max(n, 1))
    }

    /// Mean speed (pixels a frame) over a window starting at each frame.
    static func speed(_ frames: [[SIMD2<Float>]], _ range: Range<Int>) -> Float {
        var sum: Float = 0, n = 0
        for t in (range.lowerBound + 1)..<range.upperBound {
            for (a, b) in zip(frames[t - 1], frames[t]) { let d = b - a; sum += (d * d).sum().squareRoot(); n += 1 }
        }
        return sum / Float(max(n, 1))
    }

    /// The delay, in frames, at which the raw track best matches the smoothed one on `range`
    /// (mean distance, sub-frame by a parabola through the best shift and its neighbours).
    static func lag<V: SIMD>(raw: [[V]], smoothed: [[V]], _ range: Range<Int>) -> Float where V.Scalar == Float {
        let shifts = 0...5
        let errors = shifts.map { s -> Float in
            var sum: Float = 0, n = 0
            for t in range where t - s >= 0 {
                for (a, b) in zip(smoothed[t], raw[t - s]) { let d = a - b; sum += (d * d).sum().squareRoot(); n += 1 }
            }
            return sum / Float(max(n, 1))
        }
        guard let best = errors.indices.min(by: { errors[$0] < errors[$1] }) else { return 0 }
        guard best > 0, best < errors.count - 1 else { return Float(best) }
        let (l, c, r) = (errors[best - 1], errors[best], errors[best + 1])
        let denominator = l - 2 * c + r
        return Float(best) + (denominator > 0 ? 0.5 * (l - r) / denominator : 0)
    }

    func testSmoothingReducesJitterWithLittleLag() throws {
        let raw = try track(smooth: false), smooth = try track(smooth: true)
        let rawImage = raw.image.compactMap { $0 }, smoothImage = smooth.image.compactMap { $0 }
        XCTAssertEqual(rawImage.count, 40, "the hand is tracked in every frame")
        XCTAssertEqual(smoothImage.count, 40)
        let window = 10
        let starts = 0...(40 - window)
        let steadiest = starts.min {
            Self.speed(rawImage, $0..<$0 + window) < Self.speed(rawImage, $1..<$1 + window)
        } ?? 0
        let fastest = starts.max {
            Self.speed(rawImage, $0..<$0 + window) < Self.speed(rawImage, $1..<$1 + window)
        } ?? 0
        let steady = steadiest..<steadiest + window, moving = fastest..<fastest + window
        let jitterRaw = Self.jitter(rawImage, steady), jitterSmooth = Self.jitter(smoothImage, steady)
        let rawWorld = raw.world.compactMap { $0 }, smoothWorld = smooth.world.compactMap { $0 }
        let worldRaw = Self.jitter(rawWorld, steady) * 1000, worldSmooth = Self.jitter(smoothWorld, steady) * 1000
        let lag = Self.lag(raw: rawImage, smoothed: smoothImage, moving)
        let worldLag = Self.lag(raw: rawWorld, smoothed: smoothWorld, moving)
        print(String(format: "hand smoothing on hand_asl_1: steadiest frames %d-%d (%.2f px/frame): "
                     + "jitter %.3f px raw, %.3f px "
                     + "smoothed; world jitter %.3f mm raw, %.3f mm smoothed; "
                     + "moving frames %d-%d (%.2f px/frame): lag %.2f frames "
                     + "(world %.2f)",
                     steady.lowerBound, steady.upperBound - 1, Self.speed(rawImage, steady), jitterRaw, jitterSmooth,
                     worldRaw, worldSmooth, moving.lowerBound, moving.upperBound - 1, Self.speed(rawImage, moving),
                     lag, worldLag))
        XCTAssertLessThan(jitterSmooth, 0.8 * jitterRaw)
        XCTAssertLessThan(worldSmooth, worldRaw)
        XCTAssertLessThanOrEqual(lag, 2)
        // The first frame of a track passes unchanged.
        XCTAssertEqual(raw.image[0], smooth.image[0])
    }

    func testSmoothingIsOffByDefaultAndIgnoredInImageMode() throws {
        XCTAssertFalse(HandLandmarkerOptions().smoothLandmarks)
        XCTAssertFalse(GestureRecognizerOptions().smoothLandmarks)
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = try Paths.model("gesture_recognizer.task")
        options.smoothLandmarks = true
        let smoothed = try GestureRecognizer(options: options)
        let plain = try GestureRecognizer(modelPath: try Paths.model("gesture_recognizer.task"))
        let frame = try TestImages.load(Paths.sequences + "/hand_asl_1/0005.png")
        for _ in 0..<3 { XCTAssertEqual(try smoothed.recognize(image: frame), try plain.recognize(image: frame)) }
    }
}
