import Foundation
import TasksVisionFormat
import XCTest

final class TFLiteModelTests: XCTestCase {
    func testReadsPalmDetectorStructure() throws {
        let model = try ModelAsset.loadModel(try FormatTestPaths.model("hand_detector.tflite"))
        let sg = try XCTUnwrap(model.subgraphs.first)
        XCTAssertEqual(sg.operators.count, 272)
        XCTAssertEqual(sg.inputs.map { sg.tensors[$0].shape }, [[1, 192, 192, 3]])
        XCTAssertEqual(sg.outputs.map { sg.tensors[$0].shape }, [[1, 2016, 18], [1, 2016, 1]])
        XCTAssertEqual(sg.operators.filter { $0.opcode == .dequantize }.count, 133)
        XCTAssertEqual(sg.operators.filter { $0.opcode == .prelu }.count, 31)
        // First conv: 5x5 stride 2 SAME on the 3-channel input.
        let conv = try XCTUnwrap(sg.operators.first { $0.opcode == .conv2D })
        guard case .conv2D(let o) = conv.options else { return XCTFail("conv options") }
        XCTAssertEqual(o.strideW, 2)
        XCTAssertEqual(sg.tensors[conv.inputs[1]].shape, [32, 5, 5, 3])
        XCTAssertTrue(sg.tensors.contains { $0.type == .float16 })
    }

    func testReadsMetadataNormalizationAndLabels() throws {
        let model = try ModelAsset.loadModel(try FormatTestPaths.model("hand_detector.tflite"))
        let meta = try XCTUnwrap(try model.metadata())
        XCTAssertEqual(meta.name, "Multi Hand Detection")
        XCTAssertEqual(meta.version, "1")
        XCTAssertEqual(meta.author, "MediaPipe")
        XCTAssertEqual(meta.inputNormalization?.mean, [0])
        XCTAssertEqual(meta.inputNormalization?.std, [255])

        let classifier = try ModelAsset.loadModel(try FormatTestPaths.model("canned_gesture_classifier.tflite"))
        let labels = try XCTUnwrap(try classifier.associatedFiles()["labels.txt"])
        XCTAssertEqual(String(decoding: labels, as: UTF8.self).split(separator: "\n").map(String.init),
                       ["None", "Closed_Fist", "Open_Palm", "Pointing_Up", "Thumb_Down", "Thumb_Up", "Victory",
                        "ILoveYou"])
        XCTAssertEqual(try classifier.metadata()?.allAssociatedFileNames, ["labels.txt"])

        let landmarks = try ModelAsset.loadModel(try FormatTestPaths.model("hand_landmark_full.tflite"))
        XCTAssertEqual(String(decoding: try XCTUnwrap(try landmarks.associatedFiles()["handedness.txt"]), as: UTF8.self)
                        .split(separator: "\n").map(String.init), ["Left", "Right"])
    }

    func testModelWithoutMetadata() throws {
        let model = try ModelAsset.loadModel(try FormatTestPaths.model("pose_landmark_full.tflite"))
        XCTAssertNil(try model.metadata())
        XCTAssertEqual(try model.associatedFiles().count, 0)
    }

    func testSparseTensorsHaveSparsity() throws {
        let model = try ModelAsset.loadModel(try FormatTestPaths.model("pose_detection.tflite"))
        let sg = try XCTUnwrap(model.subgraphs.first)
        let densify = sg.operators.filter { $0.opcode == .densify }
        XCTAssertEqual(densify.count, 38)
        for op in densify {
            let sparsity = try XCTUnwrap(sg.tensors[op.inputs[0]].sparsity)
            XCTAssertEqual(sparsity.dimensionMetadata.count, sparsity.traversalOrder.count)
        }
    }

    func testBundleMembersAndNesting() throws {
        let path = try FormatTestPaths.model("gesture_recognizer.task")
        let bundle = try TaskBundle(path: path)
        XCTAssertEqual(Set(bundle.memberNames), ["hand_landmarker.task", "hand_gesture_recognizer.task"])
        let nested = try ModelAsset.loadModel(path + ":hand_gesture_recognizer.task:gesture_embedder.tflite")
        XCTAssertEqual(nested.name, path + ":hand_gesture_recognizer.task:gesture_embedder.tflite")
        XCTAssertEqual(nested.subgraphs[0].inputs.count, 3)
        // The official 2022 test bundle is not aligned; it must read the same way.
        let old = try TaskBundle(path: try FormatTestPaths.model("hand_gesture_recognizer_with_custom_classifier.task"))
        XCTAssertEqual(Set(old.memberNames),
                       ["gesture_embedder.tflite", "canned_gesture_classifier.tflite",
                        "custom_gesture_classifier.tflite"])
        XCTAssertEqual(try old.member("gesture_embedder.tflite"),
                       try ModelAsset.readFile(try FormatTestPaths.model("gesture_embedder.tflite")))
    }

    func testMissingBundleMemberNamesAvailableMembers() throws {
        let path = try FormatTestPaths.model("hand_landmarker.task")
        XCTAssertThrowsError(try ModelAsset.loadModel(path + ":nope.tflite")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("nope.tflite") && text.contains("hand_detector.tflite"), text)
        }
    }
}
