import Foundation
@testable import TasksVision
import TasksVisionEngine
import TasksVisionImageIO
import XCTest

/// `ObjectDetector` with efficientdet_lite0.tflite against MediaPipe 1.2.3's (tools/reference_objects.py,
/// Tests/Fixtures/objects/objects.json): every photo at four rotations, three photos in full, six option sets,
/// two sequences in video mode. The same detections in the same order, boxes and labels equal, scores within
/// 1e-6 (both are the dequantized int8 levels, so equal). MediaPipe reports boxes in the stored image; the
/// graph's output is compared with them, and the public result with them turned into the displayed image.
final class ObjectDetectorParityTests: XCTestCase {
    static func detector(_ options: ObjectDetectorOptions = ObjectDetectorOptions(),
                         mode: RunningMode = .image) throws -> ObjectDetector {
        options.baseOptions.modelAssetPath = try Paths.model(ObjectFixtures.model)
        options.runningMode = mode
        return try ObjectDetector(options: options)
    }

    static func image(_ file: String, rotation: Int = 0) throws -> MPImage {
        let path = ObjectFixtures.path(file)
        let image = file.hasSuffix(".jpg") ? try MPImage(contentsOfFile: path) : try TestImages.load(path)
        return image.withOrientation(ObjectFixtures.orientation(rotation))
    }

    /// The public result is the graph's, each box turned into the displayed image, categories unchanged.
    func checkPublic(_ result: ObjectDetectorResult, _ found: [ObjectDetectorPipeline.Found], image: MPImage,
                     _ what: String) {
        XCTAssertEqual(result.detections.count, found.count, what)
        for (d, f) in zip(result.detections, found) {
            XCTAssertEqual(d.boundingBox, ObjectDetector.displayBox(f.box, image: image), what)
            XCTAssertEqual(d.categories, f.labels.categories, what)
        }
    }

    func testImageModeEveryPhotoAndOptionSet() throws {
        let doc = try ObjectFixtures.document()
        var detectors: [ObjectFixtures.Options: ObjectDetector] = [:]
        var (results, detections) = (0, 0)
        for entry in doc.images {
            let detector = try detectors[entry.options] ?? Self.detector(entry.options.detector)
            detectors[entry.options] = detector
            let image = try Self.image(entry.file, rotation: entry.rotation)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight], [entry.width, entry.height], entry.file)
            let what = "\(entry.file) rotation \(entry.rotation) \(entry.options)"
            let found = detector.detectStored(image)
            if ObjectFixtures.compare(found, entry.detections, what) == entry.detections.count { results += 1 }
            detections += entry.detections.count
            if entry.rotation == 0 || entry.options.max_results == 40 {
                checkPublic(try detector.detect(image: image), found, image: image, what)
            }
        }
        print("ObjectDetector image mode: \(results) of \(doc.images.count) results (\(detections) detections) "
              + "MediaPipe's")
    }

    /// Video mode gives MediaPipe's detections on every frame, and a track ID per detection.
    func testVideoModeSequences() throws {
        for video in try ObjectFixtures.document().videos {
            let detector = try Self.detector(video.options.detector, mode: .video)
            for frame in video.frames {
                let image = try TestImages.load(Paths.sequences + "/\(video.sequence)/\(frame.file)")
                let result = try detector.detect(videoFrame: image, timestampInMilliseconds: frame.timestampMs)
                ObjectFixtures.compare(ObjectFixtures.found(result), frame.detections,
                                       "\(video.sequence) \(frame.file)")
                XCTAssertEqual(result.trackingIds?.count, result.detections.count)
                XCTAssertEqual(Set(result.trackingIds ?? []).count, result.detections.count, "IDs unique in a frame")
            }
        }
    }

    /// Track IDs follow an object: on pose_dance_1 the dancer is the best detection in every frame and keeps
    /// the first frame's ID throughout.
    func testTrackIdsFollowTheDancer() throws {
        let o = ObjectDetectorOptions()
        o.scoreThreshold = 0.5
        o.categoryAllowlist = ["person"]
        let detector = try Self.detector(o, mode: .video)
        var ids: [Int] = []
        for i in 0..<40 {
            let image = try TestImages.load(Paths.sequences + String(format: "/pose_dance_1/%04d.png", i))
            let r = try detector.detect(videoFrame: image, timestampInMilliseconds: i * 33)
            XCTAssertEqual(r.detections.first?.categories.first?.categoryName, "person", "frame \(i)")
            ids.append(r.trackingIds?.first ?? -1)
        }
        XCTAssertEqual(Set(ids), [ids[0]], "\(ids)")
        XCTAssertNil(try Self.detector(o).detect(image: try TestImages.load(
            Paths.sequences + "/pose_dance_1/0000.png")).trackingIds)
    }

    /// A region of interest runs the graph on that part of the image (MediaPipe's graph takes one; its task
    /// API refuses it): the crop's detections, mapped back into the whole image.
    func testRegionOfInterest() throws {
        let detector = try Self.detector()
        let image = try Self.image("negative_animals_1.png")
        let region = CGRect(x: 0.5, y: 0, width: 0.5, height: 1)
        let result = try detector.detect(image: image, imageProcessingOptions: ImageProcessingOptions(
            regionOfInterest: region))
        let best = try XCTUnwrap(result.detections.first)
        XCTAssertEqual(best.categories.first?.categoryName, "cat")
        XCTAssertGreaterThan(best.boundingBox.midX, CGFloat(image.width) / 2)
        // The same as the crop's own detections, shifted.
        let crop = try ImageRegion(region, in: image).crop(image)
        let alone = try detector.detect(image: crop)
        XCTAssertEqual(alone.detections.first?.categories, best.categories)
        XCTAssertEqual(alone.detections.first.map { $0.boundingBox.midX + CGFloat(image.width / 2) } ?? 0,
                       best.boundingBox.midX, accuracy: 2)
        XCTAssertThrowsError(try detector.detect(image: image, imageProcessingOptions: ImageProcessingOptions(
            regionOfInterest: CGRect(x: 0.5, y: 0, width: 0.6, height: 1)))) {
            XCTAssertEqual(($0 as NSError).localizedDescription,
                           "INVALID_ARGUMENT: Expected RectF values to be in [0,1].")
        }
    }
}
