import Foundation
@testable import TasksVision
import TasksVisionFormat
import XCTest

/// The object detector's post-processing alone (`DetectionPostprocessing`, projection, pixels, deduplication) on
/// efficientdet_lite0's outputs for two photos, as MediaPipe 1.2.3's interpreter computes them
/// (Tests/Fixtures/objects/raw_*.json, tools/reference_objects.py), against MediaPipe's detections of those
/// photos: every detection (about 1100 and 1900, scores of 256 levels, so the order of equal scores is
/// libc++'s `std::sort`), boxes and labels equal, scores equal.
final class ObjectPostprocessingParityTests: XCTestCase {
    static func postprocessing(_ options: DetectionPostprocessing.Options = .init()) throws -> DetectionPostprocessing {
        let model = try ModelAsset.loadModel(try Paths.model(ObjectFixtures.model))
        return try DetectionPostprocessing(model: model, metadata: try model.metadata(),
                                           files: try model.associatedFiles(), options: options)
    }

    func run(_ stem: String) throws {
        let raw = try ObjectFixtures.raw(stem)
        let p = try Self.postprocessing()
        let outputs = try raw.outputs.map { try $0.floats() }
        XCTAssertEqual(raw.outputs[p.boxesOutput].shape, [19206, 4])
        XCTAssertEqual(raw.outputs[p.scoresOutput].shape, [19206, 90])
        let detections = outputs[p.boxesOutput].withUnsafeBufferPointer { boxes in
            outputs[p.scoresOutput].withUnsafeBufferPointer { scores in p.detections(boxes: boxes, scores: scores) }
        }
        let image = try MPImage(pixels: [UInt8](repeating: 0, count: raw.width * raw.height * 3), width: raw.width,
                                height: raw.height, pixelFormat: .rgb8)
        let roi = ImagePreprocessing.roi(image, region: nil)
        let found = ObjectDetectorPipeline.project(detections, roi: roi, flip: false, imageWidth: raw.width,
                                                   imageHeight: raw.height)
        let same = ObjectFixtures.compare(found, raw.detections, tolerance: 0, stem)
        XCTAssertGreaterThan(raw.detections.count, 1000)
        print("\(stem): \(same) of \(raw.detections.count) detections MediaPipe's, in its order")
    }

    func testAnimalsPhotoEveryDetection() throws { try run("negative_animals_1") }
    func testBurgerPhotoEveryDetection() throws { try run("burger") }
}
