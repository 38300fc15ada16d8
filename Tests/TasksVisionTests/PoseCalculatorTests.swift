import Foundation
@testable import TasksVision
import XCTest

final class PoseCalculatorTests: XCTestCase {
    func testAlignmentPointsRegion() {
        // Hips at the centre, the full-body point 50 px straight above: a 100 px square, upright.
        let r = AlignmentPointsRects.rect(center: SIMD2(0.5, 0.5), scale: SIMD2(0.5, 0.25), imageWidth: 200,
                                          imageHeight: 200)
        XCTAssertEqual(r.xCenter, 0.5); XCTAssertEqual(r.yCenter, 0.5)
        XCTAssertEqual(r.width, 0.5, accuracy: 1e-6); XCTAssertEqual(r.height, 0.5, accuracy: 1e-6)
        XCTAssertEqual(r.rotation, 0, accuracy: 1e-6)
        // Pointing right: turned by -90 degrees... normalized to (-pi, pi].
        let t = AlignmentPointsRects.rect(center: SIMD2(0.5, 0.5), scale: SIMD2(0.75, 0.5), imageWidth: 200,
                                          imageHeight: 100)
        XCTAssertEqual(t.rotation, .pi / 2, accuracy: 1e-6)
        XCTAssertEqual(t.width * 200, 100, accuracy: 1e-4)
        XCTAssertEqual(t.height * 100, 100, accuracy: 1e-4, "square in pixels")
        // Then scale 1.25, square on the long side.
        let e = RectTransformation(scaleX: 1.25, scaleY: 1.25, squareLong: true).apply(r, imageWidth: 200,
                                                                                       imageHeight: 200)
        XCTAssertEqual(e.width, 0.625, accuracy: 1e-6)
    }

    func testHeatmapRefinement() {
        // A 8x8 heatmap with one landmark: a hot 3x3 blob centred on cell (5, 2).
        var hm = [Float](repeating: -20, count: 8 * 8)
        for r in 1...3 { for c in 4...6 { hm[r * 8 + c] = 10 } }
        let lm = NormalizedLandmark(x: 4.2 / 8, y: 1.9 / 8, z: 0)
        let refined = hm.withUnsafeBufferPointer {
            RefineLandmarksFromHeatmap.refine([lm], heatmap: $0, height: 8, width: 8, channels: 1)
        }
        XCTAssertEqual(refined[0].x, 5.0 / 8, accuracy: 1e-3, "weighted mean of column indices over the width")
        XCTAssertEqual(refined[0].y, 2.0 / 8, accuracy: 1e-3)
        // A cold heatmap leaves the landmark alone (peak below 0.5).
        let cold = [Float](repeating: -3, count: 64)
        let kept = cold.withUnsafeBufferPointer {
            RefineLandmarksFromHeatmap.refine([lm], heatmap: $0, height: 8, width: 8, channels: 1)
        }
        XCTAssertEqual(kept[0], lm)
    }

    func testOneEuroFilterFollowsItsDefinition() {
        var f = OneEuroFilter(frequency: 30, minCutoff: 1, beta: 0.5, derivateCutoff: 1)
        // First value passes through (timestamp 0: the frequency stays 30).
        XCTAssertEqual(f.apply(timestampNanoseconds: 0, value: 10, valueScale: 1), 10)
        // Second at 100 ms: last time is 0, so MediaPipe keeps frequency 30.
        let v1 = f.apply(timestampNanoseconds: 100_000_000, value: 12, valueScale: 1)
        XCTAssertGreaterThan(v1, 10); XCTAssertLessThan(v1, 12)
        // Third at 200 ms: the frequency becomes 1 / 0.1 s = 10 Hz.
        _ = f.apply(timestampNanoseconds: 200_000_000, value: 12, valueScale: 1)
        XCTAssertEqual(f.frequency, 10, accuracy: 1e-9)
        // A repeated or older timestamp returns the raw value.
        XCTAssertEqual(f.apply(timestampNanoseconds: 200_000_000, value: 99, valueScale: 1), 99)
    }

    func testOneEuroExactSteps() {
        // Frequency fixed (first timestamp 0, second 33 ms): compute the filter by hand.
        var f = OneEuroFilter(frequency: 30, minCutoff: 0.05, beta: 80, derivateCutoff: 1)
        func alpha(_ c: Double) -> Double { 1 / (1 + (1 / (2 * .pi * c)) / (1 / 30.0)) }
        _ = f.apply(timestampNanoseconds: 0, value: 100, valueScale: 0.01)
        let out = f.apply(timestampNanoseconds: 33_000_000, value: 104, valueScale: 0.01)
        let dvalue = (104.0 - 100.0) * 0.01 * 30  // from the last raw value
        // The derivative filter saw 0 first (no previous raw value), then dvalue.
        let edx = Float(Double(Float(alpha(1.0)) * Float(dvalue)) + (1 - Double(Float(alpha(1.0)))) * 0)
        let cutoff = 0.05 + 80 * Double(abs(edx))
        let a = Float(alpha(cutoff))
        let expected = Float(Double(a * 104) + (1 - Double(a)) * 100)
        XCTAssertEqual(out, expected, accuracy: 1e-4)
    }

    func testVisibilitySmoothingIsALowPassFilter() {
        var lp = LowPassFilter()
        XCTAssertEqual(lp.apply(1, alpha: 0.1), 1)
        XCTAssertEqual(lp.apply(0, alpha: 0.1), 0.9, accuracy: 1e-6)
        XCTAssertEqual(lp.apply(0, alpha: 0.1), 0.81, accuracy: 1e-6)
        var s = PoseLandmarkSmoother()
        let lm = [NormalizedLandmark(x: 0.5, y: 0.5, z: 0, visibility: 1, presence: 1)]
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5)
        _ = s.smooth(lm, world: [], roi: roi, imageWidth: 100, imageHeight: 100, timestampMicroseconds: 0)
        var low = lm; low[0].visibility = 0
        let out = s.smooth(low, world: [], roi: roi, imageWidth: 100, imageHeight: 100, timestampMicroseconds: 33_000)
        XCTAssertEqual(out.0[0].visibility ?? 0, 0.9, accuracy: 1e-6)
        XCTAssertEqual(out.0[0].presence, 1, "presence is not smoothed")
    }

    /// A frame without a pose restarts only the image-landmark filter, as in MediaPipe's graph:
    /// its visibility and world-landmark smoothers receive no packet that frame and resume from
    /// their state on the next pose.
    func testLostPoseRestartsOnlyTheImageLandmarkFilter() {
        var s = PoseLandmarkSmoother()
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5)
        let first = [NormalizedLandmark(x: 0.2, y: 0.5, z: 0, visibility: 1, presence: 1)]
        let world = [Landmark(x: 0.1, y: 0, z: 0, visibility: 1, presence: 1)]
        _ = s.smooth(first, world: world, roi: roi, imageWidth: 100, imageHeight: 100, timestampMicroseconds: 0)
        s.poseLost()
        let moved = [NormalizedLandmark(x: 0.8, y: 0.5, z: 0, visibility: 0, presence: 1)]
        let movedWorld = [Landmark(x: 0.3, y: 0, z: 0, visibility: 0, presence: 1)]
        let (out, outWorld) = s.smooth(moved, world: movedWorld, roi: roi, imageWidth: 100, imageHeight: 100,
                                       timestampMicroseconds: 66_000)
        // Image landmarks start over: the new value passes unfiltered.
        XCTAssertEqual(out[0].x, 0.8)
        // Visibility continues from 1 (0.1 * 0 + 0.9 * 1), world x from 0.1 (strictly between).
        XCTAssertEqual(out[0].visibility ?? 0, 0.9, accuracy: 1e-6)
        XCTAssertEqual(outWorld[0].visibility ?? 0, 0.9, accuracy: 1e-6)
        XCTAssertGreaterThan(outWorld[0].x, 0.1)
        XCTAssertLessThan(outWorld[0].x, 0.3)
        // reset() forgets everything.
        s.reset()
        let fresh = s.smooth(moved, world: movedWorld, roi: roi, imageWidth: 100, imageHeight: 100,
                             timestampMicroseconds: 99_000)
        XCTAssertEqual(fresh.0[0].visibility, 0)
        XCTAssertEqual(fresh.1[0].x, 0.3)
    }

    func testPoseAssociationPrefersNewerRects() {
        let tracked = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.4, height: 0.4)
        let detected = NormalizedRect(xCenter: 0.52, yCenter: 0.5, width: 0.4, height: 0.4)
        let other = NormalizedRect(xCenter: 0.1, yCenter: 0.1, width: 0.1, height: 0.1)
        XCTAssertEqual(AssociationNormRect.associate([[tracked, other], [detected]], minSimilarity: 0.5),
                       [other, detected])
        XCTAssertEqual(AssociationNormRect.associate([[], [detected]], minSimilarity: 0.5), [detected])
    }
}

final class PoseDetectorTests: XCTestCase {
    func options(_ accurate: Bool, _ mode: PoseDetectorMode) throws -> CommonPoseDetectorOptions {
        let o: CommonPoseDetectorOptions = accurate ? AccuratePoseDetectorOptions() : PoseDetectorOptions()
        o.modelAssetPath = try Paths.model(accurate ? "pose_landmarker_full.task" : "pose_landmarker_lite.task")
        o.detectorMode = mode
        return o
    }

    func testSingleImageGivesPixelsAndLikelihoods() throws {
        let detector = try PoseDetector.poseDetector(options: options(false, .singleImage))
        let image = try TestImages.load(Paths.images + "/pose_standing_1.png")
        let poses = try detector.results(in: VisionImage(image: image))
        XCTAssertEqual(poses.count, 1)
        let p = try XCTUnwrap(poses.first)
        XCTAssertEqual(p.landmarks.count, 33)
        XCTAssertEqual(p.landmarks.map(\.type), PoseLandmarkType.allCases)
        XCTAssertEqual(PoseLandmarkType.rightToe.index, 32)
        // Positions in pixels, matching the Tasks landmarker's normalized output times the size.
        let tasks = try PoseLandmarker(modelPath: try Paths.model("pose_landmarker_lite.task")).detect(image: image)
        let nose = p.landmark(ofType: .nose)
        XCTAssertEqual(Float(nose.position.x), tasks.landmarks[0][0].x * Float(image.width), accuracy: 1e-3)
        XCTAssertEqual(Float(nose.position.y), tasks.landmarks[0][0].y * Float(image.height), accuracy: 1e-3)
        XCTAssertEqual(nose.inFrameLikelihood, tasks.landmarks[0][0].presence ?? -1)
        XCTAssertEqual(try detector.results(in: VisionImage(image: try TestImages.load(
            Paths.images + "/negative_coffee_1.png"))), [])
        XCTAssertEqual(detector.detectionCount, 2)
    }

    func testStreamModeTracksAndRunsTheDetectorOnce() throws {
        let detector = try PoseDetector.poseDetector(options: options(true, .stream))
        let frames = try FileManager.default.contentsOfDirectory(atPath: Paths.sequences + "/pose_dance_1").filter {
            $0.hasSuffix(".png")
        }.sorted()
        for (i, f) in frames.enumerated() {
            let poses = try detector.results(in: VisionImage(image: try TestImages.load(
                Paths.sequences + "/pose_dance_1/" + f)), timestampInMilliseconds: i * 33)
            XCTAssertEqual(poses.count, 1, f)
        }
        XCTAssertEqual(detector.detectionCount, 1, "the dancer is tracked from the first frame on")
        XCTAssertThrowsError(try detector.results(in: VisionImage(image: try TestImages.load(
            Paths.sequences + "/pose_dance_1/0000.png")), timestampInMilliseconds: 0))
        // Without timestamps, the monotonic clock is used.
        XCTAssertEqual(try detector.results(in: VisionImage(image: try TestImages.load(
            Paths.sequences + "/pose_dance_1/0000.png"))).count, 1)
    }

    func testAsyncAndMirrored() async throws {
        let detector = try PoseDetector.poseDetector(options: options(false, .singleImage))
        let image = try TestImages.load(Paths.images + "/pose_yoga_1.png")
        let up = try await detector.process(VisionImage(image: image))
        let mirrored = try await detector.process(VisionImage(image: image, orientation: .upMirrored))
        XCTAssertEqual(up.count, 1); XCTAssertEqual(mirrored.count, 1)
        // The mirrored nose is at the mirrored x.
        XCTAssertEqual(mirrored[0].landmark(ofType: .nose).position.x,
                       CGFloat(image.width) - up[0].landmark(ofType: .nose).position.x,
                       accuracy: 0.03 * CGFloat(image.width))
    }
}
