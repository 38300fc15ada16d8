import Foundation
@testable import TasksVision
import XCTest

/// ML Kit's `VisionImage` initializers from Apple images do not throw: an image that cannot be read (a UIImage without
/// a CGImage, a sample buffer of another pixel format) gives its error from the detection, sync or async, as ML Kit
/// does. The Apple initializers use `VisionImage(reading:)`, checked here with a failing read.
final class UnreadableVisionImageTests: XCTestCase {
    struct Unreadable: Error, Equatable {}

    func testTheReadErrorIsEveryDetectionsError() throws {
        let image = VisionImage(reading: { throw Unreadable() })
        XCTAssertThrowsError(try image.checkReadable()) { XCTAssertEqual($0 as? Unreadable, Unreadable()) }
        image.orientation = .right
        XCTAssertThrowsError(try image.ownedCopy().checkReadable()) { XCTAssertEqual($0 as? Unreadable, Unreadable()) }

        let pose = PoseDetector.poseDetector(options: PoseDetectorOptions())
        XCTAssertThrowsError(try pose.results(in: image)) { XCTAssertEqual($0 as? Unreadable, Unreadable()) }
        let segmenter = Segmenter.segmenter(options: SelfieSegmenterOptions())
        XCTAssertThrowsError(try segmenter.results(in: image)) { XCTAssertEqual($0 as? Unreadable, Unreadable()) }
        let done = expectation(description: "completion")
        pose.process(image) { poses, error in
            XCTAssertNil(poses)
            XCTAssertEqual(error as? Unreadable, Unreadable())
            done.fulfill()
        }
        wait(for: [done], timeout: 30)

        let readable = VisionImage(reading: { try MPImage(pixels: [1, 2, 3], width: 1, height: 1, pixelFormat: .rgb8) })
        XCTAssertNoThrow(try readable.checkReadable())
        XCTAssertEqual(readable.image.pixelWidth, 1)
    }

    /// A value type's lazily made object: made once, shared by its copies.
    func testObjectCacheMakesOnce() {
        let cache = ObjectCache()
        var made = 0
        let first = cache.value { made += 1; return NSObject() }
        let second = cache.value { made += 1; return NSObject() }
        XCTAssertTrue(first === second)
        XCTAssertEqual(made, 1)
        let mask = SegmentationMask(width: 1, height: 1, confidences: [0.5])
        let copy = mask
        XCTAssertTrue(mask.bufferCache === copy.bufferCache)
        XCTAssertEqual(mask, SegmentationMask(width: 1, height: 1, confidences: [0.5]))
    }
}
