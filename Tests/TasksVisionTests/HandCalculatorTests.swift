@testable import TasksVision
import XCTest

/// Unit tests of the hand calculators against their definitions in MediaPipe.
final class HandCalculatorTests: XCTestCase {
    func testNormalizeRadians() {
        XCTAssertEqual(normalizeRadians(90), 90 - 14 * 2 * .pi, accuracy: 1e-4)
        XCTAssertEqual(normalizeRadians(Float.pi * 1.5), -Float.pi / 2, accuracy: 1e-6)
        XCTAssertEqual(normalizeRadians(0.3), 0.3, accuracy: 1e-7)
    }

    func testPalmRectRotation() {
        // Keypoint 2 straight above keypoint 0: the vector points up (pi/2), so the target
        // angle minus pi/2 is the rotation.
        let d = RawDetection(score: 1, classId: 0, box: RelativeBox(xmin: 0.4, ymin: 0.4, width: 0.2, height: 0.1),
                             keypoints: [SIMD2(0.5, 0.6), SIMD2(0, 0), SIMD2(0.5, 0.4)])
        let upright = DetectionsToRects.rect(d, imageWidth: 100, imageHeight: 100, startKeypoint: 0, endKeypoint: 2,
                                             targetAngle: .pi / 2)
        XCTAssertEqual(upright.rotation, 0, accuracy: 1e-6)
        XCTAssertEqual(upright.xCenter, 0.5, accuracy: 1e-7)
        XCTAssertEqual(upright.yCenter, 0.45, accuracy: 1e-7)
        let tasks = DetectionsToRects.rect(d, imageWidth: 100, imageHeight: 100, startKeypoint: 0, endKeypoint: 2,
                                           targetAngle: HandPipeline.palmRotationTargetAngle)
        XCTAssertEqual(tasks.rotation, normalizeRadians(90 - .pi / 2), accuracy: 1e-5,
                       "MediaPipe Tasks' 90-radian target")
    }

    func testRectTransformation() {
        // No rotation: shift by a fraction of the size, square on the long side in pixels, scale.
        let r = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.1)
        let t = RectTransformation.palmToHand.apply(r, imageWidth: 200, imageHeight: 100)
        XCTAssertEqual(t.yCenter, 0.5 - 0.1 * 0.5, accuracy: 1e-7)
        XCTAssertEqual(t.width, 0.2 * 2.6, accuracy: 1e-6)  // long side 40 px -> 0.2 of 200
        XCTAssertEqual(t.height, 0.4 * 2.6, accuracy: 1e-6)  // 40 px of 100
        // Rotated by pi/2: a shift along the rect's y runs along the image's -x.
        let rr = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.1, height: 0.1, rotation: .pi / 2)
        let s = RectTransformation(shiftY: -0.5).apply(rr, imageWidth: 100, imageHeight: 100)
        XCTAssertEqual(s.xCenter, 0.55, accuracy: 1e-6)
        XCTAssertEqual(s.yCenter, 0.5, accuracy: 1e-6)
    }

    /// A synthetic upright hand: wrist at the bottom, fingers up.
    func hand(dx: Float = 0, scale: Float = 1) -> [NormalizedLandmark] {
        (0..<21).map { i in
            let finger = i == 0 ? 0 : (i - 1) / 4, joint = i == 0 ? 0 : (i - 1) % 4 + 1
            let x = 0.4 + Float(finger) * 0.05 * scale + dx, y = 0.8 - Float(joint) * 0.08 * scale
            return NormalizedLandmark(x: i == 0 ? 0.5 + dx : x, y: y, z: 0)
        }
    }

    func testHandLandmarksToRectUsesTheTwelvePartialLandmarks() {
        let lms = hand()
        let r = HandLandmarksToRect.rect(lms, imageWidth: 100, imageHeight: 100)
        // Partial landmarks: 0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18 (no fingertips).
        let partial = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18].map { lms[$0] }
        let x0 = partial[0].x, y0 = partial[0].y
        let x1 = ((partial[4].x + partial[8].x) / 2 + partial[6].x) / 2,
            y1 = ((partial[4].y + partial[8].y) / 2 + partial[6].y) / 2
        XCTAssertEqual(r.rotation, normalizeRadians(.pi / 2 - atan2f(-(y1 - y0), x1 - x0)), accuracy: 1e-5)
        let withTips = lms.map(\.y).min()!
        XCTAssertGreaterThan(r.yCenter - r.height / 2, withTips - 0.001, "fingertips (y 0.48) are not in the box")
    }

    func testProjectionRotatesAboutTheCrop() {
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.2, rotation: .pi / 2)
        let p = LandmarkProjection.project([NormalizedLandmark(x: 1, y: 0.5, z: 0.1)], rect: rect)[0]
        XCTAssertEqual(p.x, 0.5, accuracy: 1e-6)
        XCTAssertEqual(p.y, 0.6, accuracy: 1e-6)
        XCTAssertEqual(p.z, 0.02, accuracy: 1e-7)
        let w = LandmarkProjection.projectWorld([Landmark(x: 1, y: 0, z: 3)], rect: rect)[0]
        XCTAssertEqual(w.x, 0, accuracy: 1e-6); XCTAssertEqual(w.y, 1, accuracy: 1e-6); XCTAssertEqual(w.z, 3)
    }

    func testAssociationKeepsTrackedAndAddsOnlyNewHands() {
        let tracked = [NormalizedRect(xCenter: 0.3, yCenter: 0.3, width: 0.2, height: 0.2)]
        let same = NormalizedRect(xCenter: 0.31, yCenter: 0.3, width: 0.2, height: 0.2)
        let other = NormalizedRect(xCenter: 0.7, yCenter: 0.7, width: 0.2, height: 0.2)
        let out = HandAssociation.associate(tracked: tracked, detected: [same, other], minSimilarity: 0.5)
        XCTAssertEqual(out, [tracked[0], other])
        XCTAssertEqual(HandAssociation.iou(tracked[0], tracked[0]), 1, accuracy: 1e-6)
    }

    func testDeduplication() {
        let a = hand(), b = hand(dx: 0.002), c = hand(dx: 0.3)
        XCTAssertEqual(HandDeduplication.kept([a, b, c], imageWidth: 100, imageHeight: 100), [0, 2],
                       "the near-copy is dropped, the first kept")
        XCTAssertEqual(HandDeduplication.kept([b, a], imageWidth: 100, imageHeight: 100), [0])
    }

    func testLandmarksToMatrix() {
        // Aspect normalization of a 200x100 image, no rotation: y offsets shrink by half.
        let pts: [SIMD3<Float>] = [SIMD3(0.5, 0.5, 0.1), SIMD3(0.7, 0.5, 0.2), SIMD3(0.5, 0.9, 0.3)]
        let f = LandmarksToMatrix.features(pts, imageWidth: 200, imageHeight: 100, rotation: 0)
        // Relative to the wrist: (0.2, 0) and (0, 0.2); scale = max(x range 0.2, y range 0.2) + 1e-5.
        let s: Float = 0.2 + 1e-5
        XCTAssertEqual(f[3], 0.2 / s, accuracy: 1e-5)
        XCTAssertEqual(f[7], 0.2 / s, accuracy: 1e-5)
        XCTAssertEqual(f[8], 0.2 / s, accuracy: 1e-5, "z relative to the wrist, same scale")
        XCTAssertEqual(f[0], 0); XCTAssertEqual(f[1], 0)
        // Rotation by the image's rotation (-pi/2 for a 90-degree turn) maps +x to -y... and back.
        let r = LandmarksToMatrix.features(pts, imageWidth: nil, imageHeight: nil, rotation: -.pi / 2)
        XCTAssertEqual(r[3], 0, accuracy: 1e-5)
        XCTAssertEqual(abs(r[4]), 0.2 / (0.4 + 1e-5), accuracy: 1e-4,
                       "(0.2, 0) turns a quarter; the other point sets the 0.4 range")
    }

    func testClassifierOptionsAndCombinedPrediction() {
        let labels = ["None", "Closed_Fist", "Open_Palm"]
        let scores: [Float] = [0.2, 0.5, 0.3]
        XCTAssertEqual(ClassificationPostprocessing.categories(scores, labels: labels, options: .init())
                        .map(\.categoryName), ["Closed_Fist", "Open_Palm", "None"])
        XCTAssertEqual(ClassificationPostprocessing.categories(scores, labels: labels, options: .init(maxResults: 1))
                        .count, 1)
        XCTAssertEqual(ClassificationPostprocessing.categories(scores, labels: labels,
                                                               options: .init(scoreThreshold: 0.25))
                        .map(\.categoryName), ["Closed_Fist", "Open_Palm"])
        XCTAssertEqual(ClassificationPostprocessing.categories(scores, labels: labels,
                                                               options: .init(categoryAllowlist: ["Open_Palm"]))
                        .map(\.categoryName), ["Open_Palm"])
        XCTAssertEqual(ClassificationPostprocessing.categories(scores, labels: labels,
                                                               options: .init(categoryDenylist: ["Closed_Fist"]))
                        .first?.categoryName, "Open_Palm")
        // As MediaPipe's GetAllowOrDenyCategoryIndicesIfAny: both lists are accepted and the allowlist
        // wins; unknown names are skipped, and a list of only unknown names filters nothing.
        XCTAssertNoThrow(try ClassifierOptions(categoryAllowlist: ["a"], categoryDenylist: ["b"]).validate("canned"))
        XCTAssertEqual(ClassificationPostprocessing.categories(
                        scores, labels: labels,
                        options: .init(categoryAllowlist: ["Open_Palm"], categoryDenylist: ["Open_Palm"]))
                        .map(\.categoryName), ["Open_Palm"])
        XCTAssertEqual(ClassificationPostprocessing.categories(scores, labels: labels,
                                                               options: .init(categoryAllowlist: ["Rock"]))
                        .map(\.categoryName), ["Closed_Fist", "Open_Palm", "None"])
        XCTAssertEqual(ClassificationPostprocessing.categories(scores, labels: labels,
                                                               options: .init(categoryDenylist: ["Rock", "None"]))
                        .map(\.categoryName), ["Closed_Fist", "Open_Palm"])
        // Custom before canned: a non-None custom winner wins; a None custom defers to canned.
        let custom = [ResultCategory(index: 0, score: 0.7, categoryName: "None"),
                      ResultCategory(index: 1, score: 0.3, categoryName: "Rock")]
        let canned = ClassificationPostprocessing.categories(scores, labels: labels, options: .init())
        XCTAssertEqual(CombinedPrediction.combine([custom, canned]),
                       ResultCategory(index: -1, score: 0.5, categoryName: "Closed_Fist"))
        let rock = [ResultCategory(index: 1, score: 0.6, categoryName: "Rock"),
                    ResultCategory(index: 0, score: 0.4, categoryName: "None")]
        XCTAssertEqual(CombinedPrediction.combine([rock, canned])?.categoryName, "Rock")
        XCTAssertEqual(
            CombinedPrediction.combine([custom, [ResultCategory(index: 0, score: 0.9, categoryName: "None")]])?.score,
            0.7, "the first None")
        XCTAssertNil(CombinedPrediction.combine([[], []]))
    }
}
