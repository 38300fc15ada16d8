import Foundation
import TasksVisionFormat
import XCTest

/// `ObjectDetectorMetadata` and `BoundingBoxProperties` on efficientdet_lite0.tflite, against the values an
/// independent reading of its flatbuffers gives (Python's `flatbuffers` tables, field by field), and on
/// broken buffers.
final class ObjectDetectorMetadataTests: XCTestCase {
    func detector() throws -> (TFLiteModel, ObjectDetectorMetadata) {
        let model = try ModelAsset.loadModel(try FormatTestPaths.model("efficientdet_lite0.tflite"))
        guard let metadata = try model.metadata()?.objectDetectorMetadata(name: model.name) else {
            XCTFail("no DETECTOR_METADATA")
            throw CocoaError(.fileReadCorruptFile)
        }
        return (model, metadata)
    }

    func testEfficientDetAnchorsAndDecodingOptions() throws {
        let (_, m) = try detector()
        XCTAssertNil(m.minParserVersion)
        XCTAssertEqual(m.decoding, ObjectDetectorMetadata.DecodingOptions(
            numClasses: 90, numBoxes: 19206, numCoords: 4, keypointCoordOffset: 0, numKeypoints: 0,
            numValuesPerKeypoint: 2, xScale: 1, yScale: 1, wScale: 1, hScale: 1, applyExponentialOnBoxSize: true,
            sigmoidScore: false))
        XCTAssertEqual(m.anchors.count, 19206)
        // The float32 values, as Python printed them in double.
        typealias A = ObjectDetectorMetadata.FixedAnchor
        XCTAssertEqual(m.anchors[0], A(xCenter: Float(0.012500000186264515), yCenter: Float(0.012500000186264515),
                                      width: Float(0.07500000298023224), height: Float(0.07500000298023224)))
        XCTAssertEqual(m.anchors[1], A(xCenter: Float(0.012499997392296791), yCenter: Float(0.01249999925494194),
                                      width: Float(0.1060660183429718), height: Float(0.0530330091714859)))
        XCTAssertEqual(m.anchors[19205], A(xCenter: Float(0.8333333730697632), yCenter: Float(0.8333332538604736),
                                          width: Float(1.1224620342254639), height: Float(2.2449240684509277)))
    }

    func testEfficientDetOutputContents() throws {
        let (model, _) = try detector()
        let bytes = try XCTUnwrap(model.metadataFlatbuffer)
        let contents = try BoundingBoxProperties.outputContents(metadataFlatbuffer: bytes, name: model.name)
        XCTAssertEqual(contents.count, 2)
        XCTAssertEqual(contents[0], BoundingBoxProperties.Content(type: 1))
        XCTAssertEqual(contents[0].typeName, "FeatureProperties")
        XCTAssertEqual(contents[1], BoundingBoxProperties.Content(
            type: 3, boundingBox: BoundingBoxProperties(type: 1, coordinateType: 0, index: [1, 0, 3, 2])))
        XCTAssertEqual(contents[1].boundingBox?.typeName, "BOUNDARIES")
        XCTAssertEqual(contents[1].boundingBox?.coordinateTypeName, "RATIO")
        let outputs = try XCTUnwrap(model.metadata()?.subgraphs.first?.outputs)
        XCTAssertEqual(outputs.map(\.name), ["score", "location"])
        XCTAssertEqual(outputs[0].associatedFiles.map(\.name), ["labels.txt"])
    }

    /// A buffer cut short, or without anchors, is a typed error naming the model and what is missing.
    func testBrokenMetadataIsRefused() throws {
        let (model, _) = try detector()
        let entry = try XCTUnwrap(model.metadata()?.subgraphs.first?.customMetadata.first {
            $0.name == ObjectDetectorMetadata.name
        })
        for cut in [4, 64, entry.data.count / 2] {
            XCTAssertThrowsError(try ObjectDetectorMetadata(bytes: Array(entry.data.prefix(cut)), name: "m.tflite")) {
                XCTAssertTrue("\($0)".contains("m.tflite"), "\($0)")
            }
        }
        // A root table with no fields: 4-byte root offset, vtable (4 bytes), table (soffset to the vtable).
        let empty: [UInt8] = [8, 0, 0, 0, 4, 0, 4, 0, 4, 0, 0, 0]
        XCTAssertThrowsError(try ObjectDetectorMetadata(bytes: empty, name: "m.tflite")) {
            XCTAssertTrue("\($0)".contains("no SSD anchors"), "\($0)")
        }
    }
}
