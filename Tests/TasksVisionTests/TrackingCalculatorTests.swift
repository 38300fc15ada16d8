import Foundation
@testable import TasksVision
import XCTest

/// The calculators of issue 16 on small inputs with known answers.
final class TrackingCalculatorTests: XCTestCase {
    func rect(_ x: Float, _ y: Float, _ s: Float = 0.2) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: s, height: s)
    }

    func testHandAssociationKeepsTracksAndDropsOverlappingPalms() {
        let tracked = [TrackedRect(rect: rect(0.3, 0.3), id: 7)]
        let detected = [rect(0.31, 0.3), rect(0.7, 0.7)]
        let out = TrackIdAssociation.hands(tracked: tracked, detected: detected, minSimilarity: 0.5)
        XCTAssertEqual(out.map(\.id), [7, nil])
        XCTAssertEqual(out.map(\.rect), [rect(0.3, 0.3), rect(0.7, 0.7)])
    }

    func testPoseAssociationHandsTheTrackToTheDetectionReplacingIt() {
        let tracked = [TrackedRect(rect: rect(0.3, 0.3), id: 3), TrackedRect(rect: rect(0.8, 0.8), id: 4)]
        let detected = [TrackedRect(rect: rect(0.32, 0.3)), TrackedRect(rect: rect(0.5, 0.1, 0.1))]
        let out = TrackIdAssociation.poses([tracked, detected], minSimilarity: 0.5)
        // MediaPipe's order: the tracked rect the detection overlaps is replaced by it, at the end.
        XCTAssertEqual(out.map(\.rect), [rect(0.8, 0.8), rect(0.32, 0.3), rect(0.5, 0.1, 0.1)])
        XCTAssertEqual(out.map(\.id), [4, 3, nil])
    }

    func testCounterNeverReusesIds() {
        var counter = TrackIdCounter()
        let a = counter.assign([TrackedRect(rect: rect(0.1, 0.1)), TrackedRect(rect: rect(0.5, 0.5), id: 9)])
        XCTAssertEqual(a.map(\.id), [1, 9])
        let b = counter.assign([TrackedRect(rect: rect(0.1, 0.1))])
        XCTAssertEqual(b.map(\.id), [2])
    }

    func testSmoothingIsPerTrackAndRestartsForANewTrack() {
        var smoothing = HandLandmarkSmoothing()
        func hand(_ id: Int, _ x: Float) -> HandLandmarkSmoothing.Hand {
            HandLandmarkSmoothing.Hand(id: id,
                                       landmarks: Array(repeating: NormalizedLandmark(x: x, y: 0.5, z: 0), count: 21),
                                       world: Array(repeating: Landmark(x: x, y: 0, z: 0), count: 21),
                                       rect: rect(x, 0.5))
        }
        // The first frame of a track passes through; a jump of a still hand is pulled back.
        let first = smoothing.smooth([hand(1, 0.5)], imageWidth: 100, imageHeight: 100, timestampMilliseconds: 0)
        XCTAssertEqual(first[0].landmarks[0].x, 0.5)
        let second = smoothing.smooth([hand(1, 0.52)], imageWidth: 100, imageHeight: 100, timestampMilliseconds: 33)
        XCTAssertGreaterThan(second[0].landmarks[0].x, 0.5)
        XCTAssertLessThan(second[0].landmarks[0].x, 0.52)
        // Track 1 ended; track 2 starts afresh where it is.
        let other = smoothing.smooth([hand(2, 0.9)], imageWidth: 100, imageHeight: 100, timestampMilliseconds: 66)
        XCTAssertEqual(other[0].landmarks[0].x, 0.9)
        XCTAssertEqual(Array(smoothing.states.keys), [2])
    }

    func testRegionRoundsToWholePixelsAndMapsBack() throws {
        let image = try MPImage(pixels: [UInt8](repeating: 0, count: 200 * 100 * 3), width: 200, height: 100,
                                pixelFormat: .rgb8)
        let r = try ImageRegion(CGRect(x: 0.25, y: 0.1, width: 0.5, height: 0.5), in: image)
        XCTAssertEqual([r.x, r.y, r.width, r.height], [50, 10, 100, 50])
        XCTAssertEqual(r.x(0), 0.25); XCTAssertEqual(r.x(1), 0.75); XCTAssertEqual(r.y(1), 0.6)
        // Turned right, the displayed image is 100 x 200 and the region's stored pixels move.
        let turned = try ImageRegion(CGRect(x: 0, y: 0, width: 0.5, height: 0.25), in: image.withOrientation(.right))
        XCTAssertEqual([turned.x, turned.y, turned.width, turned.height], [0, 50, 50, 50])
        XCTAssertEqual([turned.displayX, turned.displayY, turned.displayWidth, turned.displayHeight], [0, 0, 50, 50])
        XCTAssertThrowsError(try ImageRegion(CGRect(x: 0.5, y: 0, width: 0.6, height: 1), in: image)) { error in
            XCTAssertTrue("\(error)".contains("regionOfInterest"))
        }
        XCTAssertThrowsError(try ImageRegion(CGRect(x: 0.5, y: 0.5, width: 0.001, height: 0.001), in: image))
        let moved = r.reframe(rect(0.5, 0.5, 0.1), to: ImageRegion(wholeOf: image))
        XCTAssertEqual(moved, NormalizedRect(xCenter: 0.5, yCenter: 0.35, width: 0.05, height: 0.05))
    }
}
