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
                lines.append("tensor \(t.index) \(t.name) \(t.shape) \(t.type) var \(t.isVariable) data \(data)"
                             + (t.quantization.map { " quantization \($0)" } ?? ""))
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
                         "gesture_embedder.tflite", "efficientnet_lite0.tflite", "efficientdet_lite0.tflite",
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

    /// A model written from scratch reads back, and a description the writer cannot write is refused
    /// with the tensor or operator at fault.
    func testWrittenModelReadsBackAndBadDescriptionsAreRefused() throws {
        let weights = TFLiteModelWriter.Tensor(name: "w", shape: [2, 3], floats: [1, 2, 3, 4, 5, 6])
        let graph = TFLiteModelWriter.Subgraph(
            name: "main",
            tensors: [.init(name: "in", shape: [1, 3]), weights, .init(name: "out", shape: [1, 2])],
            inputs: [0], outputs: [2],
            operators: [.init(.fullyConnected, inputs: [0, 1, -1], outputs: [2],
                              options: .fullyConnected(.init(activation: .relu6)))])
        let writer = TFLiteModelWriter(description: "test", subgraphs: [graph], metadata: [("x", [1, 2, 3])],
                                       associatedFiles: [("a.txt", Array("a".utf8))])
        let model = try TFLiteModel(bytes: try writer.serialized(), name: "written")
        XCTAssertEqual(model.description, "test")
        let sg = model.subgraphs[0]
        XCTAssertEqual(sg.tensors.map(\.name), ["in", "w", "out"])
        XCTAssertEqual(sg.operators.first?.inputs, [0, 1, -1])
        guard case let .fullyConnected(fc)? = sg.operators.first?.options else { return XCTFail("options") }
        XCTAssertEqual(fc.activation, .relu6)
        XCTAssertEqual(model.constantData(of: sg.tensors[1]).map(Array.init), weights.data)
        XCTAssertEqual(model.metadataBuffers.map(\.name), ["x"])
        XCTAssertEqual(try model.associatedFiles(), ["a.txt": [97]])

        var bad = writer
        bad.subgraphs[0].operators[0].inputs = [0, 7]
        XCTAssertThrowsError(try bad.serialized()) {
            XCTAssertTrue("\($0)".contains("subgraph 0 operator 0 input refers to tensor 7 of 3"), "\($0)")
        }
        bad = writer
        bad.subgraphs[0].tensors[1].data = [0, 0, 0]
        XCTAssertThrowsError(try bad.serialized()) {
            XCTAssertTrue("\($0)".contains("tensor 1 (w) of shape [2, 3] has 3 bytes of data, expected 24"), "\($0)")
        }
        bad = writer
        bad.subgraphs[0].operators[0] = .init(.pad, inputs: [0], outputs: [2], options: .softmax(beta: 1))
        XCTAssertThrowsError(try bad.serialized()) {
            XCTAssertTrue("\($0)".contains("(PAD): the writer has no options for it"), "\($0)")
        }
    }

    /// Quantized tensors (per tensor, and per channel along a dimension other than 0) and the options of the
    /// convolutions and pools read back as written.
    func testQuantizedTensorsAndConvolutionOptionsReadBack() throws {
        typealias Q = TFLiteModel.Quantization
        let perChannel = Q(scales: [0.5, 0.25, 0.125], zeroPoints: [0, 0, 0], quantizedDimension: 3)
        let tensors: [TFLiteModelWriter.Tensor] = [
            .init(name: "x", shape: [1, 4, 4, 3], type: .int8, quantization: Q(scales: [0.05], zeroPoints: [-128])),
            .init(name: "w", shape: [1, 3, 3, 3], type: .int8, data: [UInt8](repeating: 1, count: 27),
                  quantization: perChannel),
            .init(name: "y", shape: [1, 2, 2, 3], type: .uint8, quantization: Q(scales: [0.3], zeroPoints: [255])),
            .init(name: "p", shape: [1, 2, 2, 3], type: .uint8, quantization: Q(scales: [0.3], zeroPoints: [255])),
        ]
        let conv = OperatorOptions.DepthwiseConv2D(padding: .valid, strideW: 2, strideH: 3, depthMultiplier: 1,
                                                   activation: .relu6, dilationW: 2, dilationH: 4)
        let pool = OperatorOptions.Pool2D(padding: .same, strideW: 1, strideH: 2, filterW: 3, filterH: 5,
                                          activation: .relu)
        let graph = TFLiteModelWriter.Subgraph(tensors: tensors, inputs: [0], outputs: [3], operators: [
            .init(.depthwiseConv2D, version: 3, inputs: [0, 1, -1], outputs: [2], options: .depthwiseConv2D(conv)),
            .init(.maxPool2D, version: 2, inputs: [2], outputs: [3], options: .pool2D(pool)),
        ])
        let model = try TFLiteModel(bytes: try TFLiteModelWriter(subgraphs: [graph]).serialized(), name: "q")
        let sg = try XCTUnwrap(model.subgraphs.first)
        XCTAssertEqual(sg.tensors.map(\.quantization), tensors.map(\.quantization))
        XCTAssertEqual(sg.tensors.map(\.type), [.int8, .int8, .uint8, .uint8])
        XCTAssertEqual(sg.operators.map(\.version), [3, 2])
        guard case let .depthwiseConv2D(c)? = sg.operators.first?.options,
              case let .pool2D(p)? = sg.operators.last?.options else { return XCTFail("options") }
        XCTAssertEqual([c.padding.rawValue, p.padding.rawValue], [1, 0])
        XCTAssertEqual([c.strideW, c.strideH, c.depthMultiplier, c.dilationW, c.dilationH], [2, 3, 1, 2, 4])
        XCTAssertEqual([p.strideW, p.strideH, p.filterW, p.filterH], [1, 2, 3, 5])
        XCTAssertEqual([c.activation, p.activation], [.relu6, .relu])
    }

    /// Random trees of tables, strings, scalars and vectors read back field for field.
    func testRandomFlatBuffersReadBack() throws {
        var state: UInt64 = 12345
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        func tree(_ depth: Int) -> FlatObject {
            var o = FlatObject()
            for index in 0..<(next() % 9) where next() % 3 != 0 {
                switch next() % 7 {
                case 0: o.set(index, u8: UInt8(next() % 256))
                case 1: o.set(index, i32: Int32(truncatingIfNeeded: next()))
                case 2: o.set(index, u64: UInt64(next()) << 20)
                case 3: o.set(index, u16: UInt16(next() % 65536))
                case 4: o.set(index, string: String(repeating: "é", count: next() % 5))
                case 5: o.set(index, bytes: (0..<(next() % 20)).map { _ in UInt8(next() % 256) },
                              alignment: [1, 4, 16][next() % 3])
                default: if depth < 3 { o.set(index, table: tree(depth + 1)) }
                }
            }
            return o
        }
        for _ in 0..<300 {
            let root = tree(0)
            let bytes = try FlatBufferWriter.serialize(root: root)
            try compare(try FlatTable.root(ByteView(bytes: bytes, name: "random"), what: "root"), root)
        }
    }

    /// Compares a read table with the tree it was written from, field by field.
    func compare(_ t: FlatTable, _ o: FlatObject) throws {
        for (index, field) in o.fields {
            switch field {
            case let .scalar(bytes):
                let p = try XCTUnwrap(try t.fieldPosition(index))
                XCTAssertEqual(p % bytes.count, 0, "field \(index) aligned")
                XCTAssertEqual(Array(t.view.bytes[p..<(p + bytes.count)]), bytes)
            case let .reference(.string(s)):
                XCTAssertEqual(try t.string(index), s)
            case let .reference(.scalars(bytes, elementSize, alignment)):
                let v = try XCTUnwrap(try t.vector(index, elementSize: elementSize, what: "vector"))
                XCTAssertEqual(v.start % alignment, 0)
                XCTAssertEqual(Array(t.view.bytes[v.start..<(v.start + bytes.count)]), bytes)
            case let .reference(.table(child)):
                try compare(try XCTUnwrap(try t.table(index, what: "child")), child)
            default:
                XCTFail("unexpected field")
            }
        }
    }
}
