import Foundation
import TasksVision
import XCTest

/// The object detector's mistakes, as MediaPipe 1.2.3 reports them (its texts, as `localizedDescription`, and
/// code 3; checked with its Python API on the same files), and a model of another kind named for what it is.
final class ObjectDetectorErrorTests: XCTestCase {
    var said = ""

    /// The error (a `VisionTaskError`: its description is ours, its `NSError` side MediaPipe's).
    func error(_ model: String, _ configure: (ObjectDetectorOptions) -> Void = { _ in }) throws -> NSError {
        let o = ObjectDetectorOptions()
        o.baseOptions.modelAssetPath = try Paths.model(model)
        configure(o)
        do {
            _ = try ObjectDetector(options: o)
        } catch let e as VisionTaskError {
            said = e.description
            return e as NSError
        }
        XCTFail("\(model) was accepted")
        throw CocoaError(.featureUnsupported)
    }

    func testOptionMistakes() throws {
        let zero = try error("efficientdet_lite0.tflite") { $0.maxResults = 0 }
        XCTAssertEqual(zero.localizedDescription, "INVALID_ARGUMENT: Invalid `max_results` option: value must be != 0")
        XCTAssertEqual([zero.domain, "\(zero.code)"], ["com.google.mediapipe.tasks", "3"])
        XCTAssertTrue(said.contains("maxResults 0"), said)
        let lists = try error("efficientdet_lite0.tflite") {
            $0.categoryAllowlist = ["cat"]
            $0.categoryDenylist = ["dog"]
        }
        XCTAssertEqual(lists.localizedDescription, "INVALID_ARGUMENT: `category_allowlist` and `category_denylist` are "
                       + "mutually exclusive options.")
    }

    /// A classifier or segmenter is named, with the task to use; MediaPipe's text for it stays the description.
    func testModelsOfOtherKindsAreNamed() throws {
        for (model, kind, task) in [("efficientnet_lite0_float32.tflite", "an image classifier", "ImageClassifier"),
                                    ("efficientnet_lite0.tflite", "an image classifier", "ImageClassifier"),
                                    ("deeplab_v3.tflite", "an image segmenter", "ImageSegmenter"),
                                    ("selfie_segmenter.tflite", "an image segmenter", "ImageSegmenter")] {
            let e = try error(model)
            XCTAssertEqual(e.localizedDescription, "INVALID_ARGUMENT: Expected a model with 2 or 4 output tensors, "
                           + "found 1.", model)
            XCTAssertEqual(e.code, 3)
            let text = said
            XCTAssertTrue(text.contains("\(model) is \(kind)") && text.contains("use \(task)"), text)
        }
    }

    /// Detectors MediaPipe's graph cannot configure: BlazeFace (no box properties in its metadata) and a model
    /// without metadata.
    func testDetectorsWithoutObjectDetectorMetadata() throws {
        XCTAssertEqual(try error("blaze_face_short_range.tflite").localizedDescription,
                       "INVALID_ARGUMENT: Expected BoundingBoxProperties for tensor raw boxes/keypoints, found "
                       + "FeatureProperties.")
        XCTAssertEqual(try error("face_detection_full_range.tflite").localizedDescription,
                       "INVALID_ARGUMENT: Object detection models require TFLite Model Metadata but none was found")
    }
}
