import Foundation
@testable import TasksVision
import XCTest

/// The masks of the public API: the pipeline's masks (checked against MediaPipe in
/// PoseSegmentationParityTests), turned to the displayed image and placed in a region.
final class PoseMaskAPITests: XCTestCase {
    func landmarker(masks: Bool) throws -> PoseLandmarker {
        let o = PoseLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Paths.model("pose_landmarker_lite.task")
        o.shouldOutputSegmentationMasks = masks
        return try PoseLandmarker(options: o)
    }

    func testMasksFollowTheDisplayedImage() throws {
        let image = try TestImages.load(Paths.images + "/pose_yoga_2.png")
        XCTAssertNil(try landmarker(masks: false).detect(image: image).segmentationMasks)
        let masked = try landmarker(masks: true)
        let up = try masked.detect(image: image)
        XCTAssertEqual(up.segmentationMasks?.count, up.landmarks.count)
        guard let mask = up.segmentationMasks?.first else { return XCTFail("no pose in pose_yoga_2") }
        XCTAssertEqual([mask.width, mask.height], [400, 300])
        // The person covers part of the image: the mask is neither empty nor full.
        let inside = mask.float32Data.filter { $0 > 0.5 }.count
        XCTAssertTrue(inside > 1000 && inside < 400 * 300 / 2, "\(inside)")
        // The pipeline's stored-pixel mask, turned with the image.
        let turned = try masked.detect(image: image.withOrientation(.right))
        let stored = try XCTUnwrap(masked.pipeline.process(image.withOrientation(.right), stream: false,
                                                           timestampMilliseconds: 0)
            .first?.segmentationMask)
        let shown = try XCTUnwrap(turned.segmentationMasks?.first)
        XCTAssertEqual([shown.width, shown.height], [300, 400])
        XCTAssertEqual(shown.value(x: 299, y: 0), stored.value(x: 0, y: 0))
        XCTAssertEqual(shown.value(x: 0, y: 399), stored.value(x: 399, y: 299))
        // ML Kit's shape gives the same mask.
        let options = PoseDetectorOptions()
        options.detectorMode = .singleImage
        options.modelAssetPath = try Paths.model("pose_landmarker_lite.task")
        options.outputSegmentationMasks = true
        let poses = try PoseDetector.poseDetector(options: options).results(in: VisionImage(image: image))
        XCTAssertEqual(poses.first?.segmentationMask, mask)
    }

    func testRegionMaskIsTheCropsMaskInPlace() throws {
        let image = try TestImages.load(Paths.images + "/pose_yoga_1.png")   // 1000 x 667
        let masked = try landmarker(masks: true)
        let a = try masked.detect(
            image: image, imageProcessingOptions: .init(regionOfInterest: CGRect(x: 0.25, y: 0, width: 0.5, height: 1)))
        let full = try XCTUnwrap(a.segmentationMasks?.first)
        XCTAssertEqual([full.width, full.height], [1000, 667])
        XCTAssertEqual(full.value(x: 100, y: 300), 0)
        XCTAssertEqual(full.value(x: 900, y: 300), 0)
        XCTAssertGreaterThan(full.float32Data.filter { $0 > 0.5 }.count, 1000)
    }
}
