@testable import TasksVision
import XCTest

/// The orientation's numbers, written without exhaustive switches (where UIKit exists the type is
/// `UIImage.Orientation`, which may gain cases): EXIF's numbering and the turn each case stands for.
final class ImageOrientationTests: XCTestCase {
    func testExifValuesAndRotations() {
        let byExif: [ImageOrientation] = [.up, .upMirrored, .down, .downMirrored, .leftMirrored, .right,
                                          .rightMirrored, .left]
        XCTAssertEqual(byExif.map(\.exifValue), Array(1...8))
        XCTAssertEqual((1...8).map { ImageOrientation(exifValue: $0) }, byExif)
        XCTAssertNil(ImageOrientation(exifValue: 0))
        XCTAssertNil(ImageOrientation(exifValue: 9))
        XCTAssertEqual(byExif.map(\.rotationDegrees), [0, 0, 180, 180, 90, 90, 270, 270])
        XCTAssertEqual(byExif.map(\.isMirrored), [false, true, false, true, true, false, true, false])
        XCTAssertEqual(ImageOrientation.allCases.count, 8)
    }
}
