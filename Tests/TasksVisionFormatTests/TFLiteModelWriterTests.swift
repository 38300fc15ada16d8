import Foundation
@testable import TasksVisionFormat
import XCTest

/// The writers (FlatBufferWriter, TFLiteModelWriter, ModelMetadata.serialized) against the
/// readers: every model the writer can express reads back the same.
final class TFLiteModelWriterTests: XCTestCase {
    func testFlatBuffersReadBack() throws {
        var inner = FlatObject()
        inner.set(0, string: "inner")
        inner.set(1, floats: [1.5, -2])
        var root = FlatObject()
        root.set(0, u8: 7)
        root.set(1, i32: -5)
        root.set(2, u64: 0x1234_5678_9ABC_DEF0)
        root.set(3, f32: 0.25)
        root.set(4, string: "héllo")
        root.set(5, tables: [inner, FlatObject()])
        root.set(6, strings: ["a", "bc"])
        root.set(7, bytes: [1, 2, 3], alignment: 16)
        root.set(9, u16: 513)
        let bytes = try FlatBufferWriter.serialize(root: root, identifier: "TEST")
        XCTAssertEqual(Array(bytes[4..<8]), Array("TEST".utf8))
        let t = try FlatTable.root(ByteView(bytes: bytes, name: "test"), what: "root")
        XCTAssertEqual(try t.u8(0), 7)
        XCTAssertEqual(try t.i32(1), -5)
        XCTAssertEqual(try t.u64(2), 0x1234_5678_9ABC_DEF0)
        XCTAssertEqual(try t.f32(3), 0.25)
        XCTAssertEqual(try t.string(4), "héllo")
        let tables = try t.tables(5, what: "inner")
        XCTAssertEqual(tables.count, 2)
        XCTAssertEqual(try tables[0].string(0), "inner")
        XCTAssertEqual(try tables[0].floats(1, what: "floats"), [1.5, -2])
        XCTAssertNil(try tables[1].string(0))
        XCTAssertEqual(try t.strings(6, what: "strings"), ["a", "bc"])
        let v = try XCTUnwrap(try t.vector(7, elementSize: 1, what: "bytes"))
        XCTAssertEqual(v.start % 16, 0)
        XCTAssertEqual(Array(bytes[v.start..<(v.start + 3)]), [1, 2, 3])
        XCTAssertNil(try t.fieldPosition(8))
        XCTAssertEqual(try t.u16(9), 513)
        XCTAssertEqual(try t.u32(2 + 100, default: 9), 9)
    }

    /// Models in Models/ and ../shared/models, with the .tflite members of their bundles.
    static func allModels() throws -> [(name: String, bytes: [UInt8])] {
        var found: [(String, [UInt8])] = []
        let shared = ProcessInfo.processInfo.environment["TASKSVISION_SHARED"] ?? (FormatTestPaths.root + "/../shared")
        for folder in [FormatTestPaths.models, shared + "/models"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() {
                let path = folder + "/" + name
                if name.hasSuffix(".tflite") {
                    found.append((path, try ModelAsset.readFile(path)))
                } else if name.hasSuffix(".task") {
                    func members(_ bundle: TaskBundle) throws {
                        for m in bundle.memberNames {
                            if m.hasSuffix(".tflite") { found.append((bundle.name + ":" + m, try bundle.member(m))) }
                            if m.hasSuffix(".task") { try members(try bundle.bundle(m)) }
                        }
                    }
                    try members(try TaskBundle(path: path))
                }
            }
        }
        return found
    }

    func describe(_ m: TFLiteModel) throws -> String {
        var lines = ["version \(m.version) description \(m.description ?? "-")"]
        for sg in m.subgraphs {
            lines.append("subgraph \(sg.name ?? "-") in \(sg.inputs) out \(sg.outputs)")
            for t in sg.tensors {
                let data = m.constantData(of: t).map { "\($0.count) bytes crc \(CRC32.checksum(Array($0)))" } ?? "none"
                lines.append("tensor \(t.index) \(t.name) \(t.shape) \(t.type) var \(t.isVariable) data \(data)")
            }
            for o in sg.operators {
                lines.append("op \(o.index) \(o.opcode) v\(o.version) \(o.inputs) -> \(o.outputs) \(o.options)")
            }
        }
        for entry in m.metadataBuffers {
            lines.append("metadata \(entry.name) crc \(CRC32.checksum(Array(m.bufferBytes(entry.buffer))))")
        }
        if let md = try m.metadata() { lines.append("metadata \(md)") }
        for (k, v) in try m.associatedFiles().sorted(by: { $0.key < $1.key }) {
            lines.append("file \(k) crc \(CRC32.checksum(v))")
        }
        return lines.joined(separator: "\n")
    }

    func testEveryExpressibleModelReadsBackTheSame() throws {
        var written: [String] = [], refused: [String] = []
        for (name, bytes) in try Self.allModels() {
            let model = try TFLiteModel(bytes: bytes, name: name)
            let writer: TFLiteModelWriter
            do {
                writer = try TFLiteModelWriter(model: model)
            } catch let e as FormatError {
                guard case .unsupported = e else { throw e }
                refused.append("\(name): \(e)")
                continue
            }
            let out = try writer.serialized()
            let back = try TFLiteModel(bytes: out, name: name + " (rewritten)")
            XCTAssertEqual(try describe(back), try describe(model), name)
            XCTAssertEqual(try TFLiteModelWriter(model: back).serialized(), out, "\(name): a second rewrite differs")
            written.append(name)
        }
        print("writer: \(written.count) models read back the same; \(refused.count) refused:\n"
              + refused.joined(separator: "\n"))
        let short = Set(written.map { $0.split(separator: "/").last.map(String.init) ?? $0 })
        for expected in ["canned_gesture_classifier.tflite", "custom_gesture_classifier_modelmaker_testdata.tflite",
                         "gesture_embedder.tflite",
                         "hand_gesture_recognizer_with_custom_classifier.task:custom_gesture_classifier.tflite"] {
            XCTAssertTrue(short.contains(expected), "\(expected) was not rewritten: \(refused)")
        }
    }

    func testMetadataReadsBack() throws {
        var count = 0
        for (name, bytes) in try Self.allModels() {
            let model = try TFLiteModel(bytes: bytes, name: name)
            guard let metadata = try model.metadata() else { continue }
            let again = try ModelMetadata(bytes: try metadata.serialized(), name: name + " metadata (rewritten)")
            XCTAssertEqual(again, metadata, name)
            count += 1
        }
        XCTAssertGreaterThan(count, 5)
    }

    /// Model Maker's own custom classifier (an older Model Maker: its names differ from today's
    /// metadata_writer.py, and it has no score threshold) carries the labels file the exporter writes.
    func testModelMakersClassifierMetadata() throws {
        let path = try FormatTestPaths.model("hand_gesture_recognizer_with_custom_classifier.task")
        let model = try TaskBundle(path: path).model("custom_gesture_classifier.tflite")
        let md = try XCTUnwrap(try model.metadata())
        print("Model Maker's classifier: \(md)")
        print(model.subgraphs[0].operators.map { "\($0.opcode) v\($0.version) \($0.options)" })
        print(model.metadataBuffers.map { ($0.name, Array(model.bufferBytes($0.buffer))) })
        XCTAssertEqual(md.name, "Gesture Classifier")
        let output = try XCTUnwrap(md.subgraphs.first?.outputs.first)
        XCTAssertNil(output.scoreThreshold)  // today's metadata_writer.py adds 0.5
        XCTAssertEqual(output.associatedFiles.map(\.name), ["labels.txt"])
        XCTAssertEqual(output.associatedFiles.first?.type, .tensorAxisLabels)
        XCTAssertEqual(try model.associatedFiles()["labels.txt"].map { String(decoding: $0, as: UTF8.self) },
                       "None\nPaper\nRock\nScissors")
    }
}
