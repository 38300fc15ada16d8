import Foundation
@testable import TasksVision
import XCTest

/// The holistic landmarker's calculators on their own. Expected values come from a float32 transcription of
/// MediaPipe's C++ in numpy (HandDetectionsFromPoseToRectsCalculator; LandmarksSmoothingCalculator's one-euro
/// and low-pass filters, the filters' float fields widened to double), or follow from the calculators' rules
/// (RoiTrackingCalculator, AlignHandToPoseInWorldCalculator, DetectionsToRectsCalculator's USE_KEYPOINTS).
final class HolisticCalculatorTests: XCTestCase {
    func detection(_ points: [(Float, Float)]) -> RawDetection {
        LandmarksToDetection.detection(points.map { NormalizedLandmark(x: $0.0, y: $0.1, z: 0) })
    }

    func testHandDetectionsFromPoseToRects() throws {
        // Wrist, pinky, index; the rect centred on the estimated middle finger, twice its distance to the wrist.
        let a = try XCTUnwrap(HandDetectionsFromPoseToRects.rect(detection([(0.5, 0.6), (0.45, 0.4), (0.55, 0.42)]),
                                                                  imageWidth: 640, imageHeight: 480))
        XCTAssertEqual([a.xCenter, a.yCenter, a.width, a.height, a.rotation],
                       [0.5166666507720947, 0.41333329677581787, 0.28197720646858215, 0.3759695887565613,
                        0.11848986148834229])
        let b = try XCTUnwrap(HandDetectionsFromPoseToRects.rect(detection([(0.3, 0.2), (0.1, 0.25), (0.12, 0.15)]),
                                                                  imageWidth: 1280, imageHeight: 720))
        XCTAssertEqual([b.xCenter, b.yCenter, b.width, b.height, b.rotation],
                       [0.1133333295583725, 0.18333333730697632, 0.37380388379096985, 0.6645402312278748,
                        -1.5206152200698853])
        XCTAssertNil(HandDetectionsFromPoseToRects.rect(detection([(0.3, 0.2), (0.1, 0.25)]), imageWidth: 10,
                                                        imageHeight: 10), "three keypoints needed")
    }

    func testRoiTrackingKeepsThePreviousRectWhileTheRequirementsHold() {
        let t = RoiTracking.holisticHand
        let recrop = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.2, rotation: 0)
        let inside = [NormalizedLandmark(x: 0.5, y: 0.5, z: 0), NormalizedLandmark(x: 0.58, y: 0.42, z: 0)]
        func track(_ previous: NormalizedRect?, _ landmarks: [NormalizedLandmark]? = nil,
                   recrop r: NormalizedRect? = recrop) -> NormalizedRect? {
            t.trackingRect(previousLandmarks: landmarks ?? inside, previousRect: previous, recrop: r, imageWidth: 100,
                           imageHeight: 100)
        }
        XCTAssertNil(track(recrop, recrop: nil), "no re-crop rect: the object is not on this frame")
        XCTAssertEqual(track(nil), recrop, "no previous rect: the re-crop rect")
        var previous = recrop
        previous.xCenter = 0.53
        XCTAssertEqual(track(previous), previous, "moved by 3 of 20 pixels: kept")
        previous.xCenter = 0.55
        XCTAssertEqual(track(previous), recrop, "moved by 5 of 20 pixels, more than 0.2 of the rect")
        previous = recrop
        previous.width = 0.27
        XCTAssertEqual(track(previous), previous, "7 of 20 pixels wider: within 0.4")
        previous.width = 0.29
        XCTAssertEqual(track(previous), recrop, "9 of 20 pixels wider")
        previous = recrop
        previous.rotation = Float(39.0 * Double.pi / 180)
        XCTAssertEqual(track(previous), previous, "turned 39 degrees")
        previous.rotation = Float(41.0 * Double.pi / 180)
        XCTAssertEqual(track(previous), recrop, "turned 41 degrees, more than 40")
        // The difference is taken the short way round.
        let turned = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.2,
                                    rotation: Float(179.0 * Double.pi / 180))
        previous = turned
        previous.rotation = Float(-179.0 * Double.pi / 180)
        XCTAssertEqual(track(previous, recrop: turned), previous, "179 and -179 degrees are 2 apart")
        // Landmarks must lie strictly inside the re-crop rect shrunk by 10%: 9 pixels either side of the centre.
        XCTAssertEqual(track(recrop, [NormalizedLandmark(x: 0.589, y: 0.5, z: 0)]), recrop)
        XCTAssertEqual(track(recrop, [NormalizedLandmark(x: 0.595, y: 0.5, z: 0)]), recrop,
                       "a landmark outside: the re-crop rect (here the same rect)")
        previous = recrop
        previous.xCenter = 0.51
        XCTAssertEqual(track(previous, [NormalizedLandmark(x: 0.595, y: 0.5, z: 0)]), recrop)
        XCTAssertEqual(track(previous, [NormalizedLandmark(x: 0.585, y: 0.5, z: 0)]), previous)
    }

    func testRoiTrackingMeasuresAlongTheRecropRectsAxes() {
        // Turned 90 degrees, the rect's x axis is the image's y: a move of 5 pixels in x is across its height.
        let t = RoiTracking(rotationDegrees: 10, translation: 0.1, scale: 0.1, recropRectMargin: 0)
        let recrop = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.4, height: 0.2,
                                    rotation: Float(Double.pi / 2))
        var previous = recrop
        previous.xCenter = 0.51
        XCTAssertEqual(t.trackingRect(previousLandmarks: [], previousRect: previous, recrop: recrop, imageWidth: 100,
                                      imageHeight: 100), previous, "1 pixel across a 20-pixel side")
        previous.xCenter = 0.53
        XCTAssertEqual(t.trackingRect(previousLandmarks: [], previousRect: previous, recrop: recrop, imageWidth: 100,
                                      imageHeight: 100), recrop, "3 pixels across a 20-pixel side")
    }

    func testHolisticTrackingOptions() {
        XCTAssertEqual(RoiTracking.holisticHand, RoiTracking(rotationDegrees: 40, translation: 0.2, scale: 0.4,
                                                             recropRectMargin: -0.1))
        XCTAssertEqual(RoiTracking.holisticFace, RoiTracking(rotationDegrees: 15, translation: 0.1, scale: 0.3,
                                                             recropRectMargin: -0.2))
    }

    func testAlignHandToPoseInWorld() {
        let hand = [Landmark(x: 0.01, y: 0.02, z: 0.03, visibility: 0.5), Landmark(x: 0.05, y: -0.01, z: 0)]
        let pose = (0..<20).map { Landmark(x: Float($0), y: 2 * Float($0), z: -Float($0)) }
        let out = AlignHandToPoseInWorld.align(hand, pose: pose, poseWrist: 15)
        XCTAssertEqual(out.map(\.x), [0.01 - 0.01 + 15, 0.05 - 0.01 + 15])
        XCTAssertEqual(out.map(\.y), [0.02 - 0.02 + 30, -0.01 - 0.02 + 30])
        XCTAssertEqual(out.map(\.z), [0.03 - 0.03 - 15, 0 - 0.03 - 15])
        XCTAssertEqual(out[0].visibility, 0.5, "the other fields are kept")
        XCTAssertEqual(AlignHandToPoseInWorld.align(hand, pose: pose, poseWrist: 20), hand, "no such pose landmark")
    }

    func testKeypointsRectTakesTheBoxOfEveryKeypoint() throws {
        var d = detection([(0.2, 0.3), (0.4, 0.3), (0.3, 0.5)])
        d.box = RelativeBox(xmin: 0, ymin: 0, width: 1, height: 1)
        let r = try XCTUnwrap(DetectionsToRects.keypointsRect(d, imageWidth: 100, imageHeight: 100, startKeypoint: 0,
                                                              endKeypoint: 1, targetAngle: 0))
        XCTAssertEqual(r.xCenter, (0.2 + 0.4) / 2)
        XCTAssertEqual(r.yCenter, (0.3 + 0.5) / 2)
        XCTAssertEqual(r.width, 0.4 - 0.2)
        XCTAssertEqual(r.height, 0.5 - 0.3)
        XCTAssertEqual(r.rotation, 0, "the eyes level")
        XCTAssertNil(DetectionsToRects.keypointsRect(detection([(0.2, 0.3)]), imageWidth: 100, imageHeight: 100,
                                                     startKeypoint: 0, endKeypoint: 1, targetAngle: 0))
    }

    func testLandmarksSmoothingOfNormalizedLandmarks() {
        var s = LandmarksSmoothing(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.4)
        let frames: [[(Float, Float, Float)]] = [
            [(0.5, 0.5, 0.1), (0.25, 0.75, -0.2)], [(0.52, 0.49, 0.11), (0.26, 0.74, -0.21)],
            [(0.6, 0.45, 0.15), (0.3, 0.7, -0.25)],
        ]
        let expected: [[[Float]]] = [
            [[0.5, 0.5, 0.10000000149011612], [0.25, 0.75, -0.20000000298023224]],
            [[0.5162705183029175, 0.49378421902656555, 0.10686185210943222],
             [0.2568618655204773, 0.7437841892242432, -0.20686185359954834]],
            [[0.5961669683456421, 0.45496252179145813, 0.1462249457836151],
             [0.2962249517440796, 0.7049625515937805, -0.24622495472431183]],
        ]
        for (i, frame) in frames.enumerated() {
            let lms = frame.map { NormalizedLandmark(x: $0.0, y: $0.1, z: $0.2, visibility: 0.7) }
            let out = s.smooth(lms, imageWidth: 640, imageHeight: 480, objectScaleRoi: roi,
                               timestampMicroseconds: Int64(i) * 33_000)
            XCTAssertEqual(out.map { [$0.x, $0.y, $0.z] }, expected[i], "frame \(i)")
            XCTAssertEqual(out.map(\.visibility), [0.7, 0.7], "visibility passes through")
        }
        // A reset starts again from the next landmarks, which pass through.
        s.reset()
        let again = s.smooth([NormalizedLandmark(x: 0.9, y: 0.1, z: 0)], imageWidth: 640, imageHeight: 480,
                             objectScaleRoi: roi, timestampMicroseconds: 200_000)
        XCTAssertEqual(again.map(\.x), [0.9])
        // An object smaller than 1e-6 pixels is not smoothed.
        var tiny = LandmarksSmoothing(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
        let point = [NormalizedLandmark(x: 0.3, y: 0.3, z: 0)]
        _ = tiny.smooth(point, imageWidth: 640, imageHeight: 480, objectScaleRoi: nil, timestampMicroseconds: 0)
        let moved = tiny.smooth([NormalizedLandmark(x: 0.4, y: 0.3, z: 0)], imageWidth: 640, imageHeight: 480,
                                objectScaleRoi: nil, timestampMicroseconds: 33_000)
        XCTAssertEqual(moved[0].x, 0.4, "one landmark's box has no size")
    }

    func testLandmarksSmoothingOfWorldLandmarks() {
        var s = LandmarksSmoothing(minCutoff: 0.1, beta: 40, derivateCutoff: 1, disableValueScaling: true)
        let expected: [[Float]] = [
            [0.10000000149011612, -0.20000000298023224, 0.30000001192092896],
            [0.10942579060792923, -0.2343606799840927, 0.30313268303871155],
            [0.18253976106643677, -0.12352804094552994, 0.21905741095542908],
        ]
        for (i, v) in [(Float(0.1), Float(-0.2), Float(0.3)), (0.12, -0.25, 0.31), (0.2, -0.1, 0.2)].enumerated() {
            let out = s.smooth([Landmark(x: v.0, y: v.1, z: v.2)], timestampMicroseconds: Int64(i) * 33_000)
            XCTAssertEqual([out[0].x, out[0].y, out[0].z], expected[i], "frame \(i)")
        }
    }

    func testVisibilitySmoothing() {
        var s = VisibilitySmoothing(alpha: 0.1)
        let out = [Float(0.9), 0.5, 0.2].map { s.smooth([NormalizedLandmark(x: 1, y: 2, z: 3, visibility: $0)])[0] }
        XCTAssertEqual(out.map(\.visibility), [0.8999999761581421, 0.85999995470047, 0.793999969959259])
        XCTAssertEqual(out.map(\.x), [1, 1, 1])
    }

    func testUprightImageTurnsThePixelsAsDisplayed() throws {
        // 3x2 pixels, gray values 0...5; every orientation's displayed picture, read through `storedPoint`.
        let stored: [UInt8] = [0, 1, 2, 3, 4, 5]
        for o in ImageOrientation.allCases {
            let image = try MPImage(pixels: stored, width: 3, height: 2, pixelFormat: .gray8, orientation: o)
            let upright = image.upright()
            XCTAssertEqual(upright.orientation, .up)
            XCTAssertEqual([upright.pixelWidth, upright.pixelHeight], [image.width, image.height], "\(o)")
            var expected: [UInt8] = []
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let p = o.storedPoint(fromDisplay: ((Float(x) + 0.5) / Float(image.width),
                                                        (Float(y) + 0.5) / Float(image.height)))
                    expected.append(stored[Int(p.y * 2) * 3 + Int(p.x * 3)])
                }
            }
            XCTAssertEqual(upright.withBytes { Array($0) }, expected, "\(o)")
        }
    }
}
