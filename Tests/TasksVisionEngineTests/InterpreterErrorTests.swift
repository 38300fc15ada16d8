import Foundation
import TasksVisionEngine
import TasksVisionFormat
import XCTest

final class InterpreterErrorTests: XCTestCase {
    /// The canned classifier with its SOFTMAX rewritten as ABS, which the engine lacks.
    func testUnsupportedOperatorIsNamedAtLoad() throws {
        var bytes = try ModelAsset.readFile(try TestPaths.model("canned_gesture_classifier.tflite"))
        let model = try TFLiteModel(bytes: bytes, name: "x")
        let root = try FlatTable.root(ByteView(bytes: bytes, name: "x"), what: "Model")
        var patched = false
        for code in try root.tables(1, what: "OperatorCode") where try code.i32(3) == 25 || code.i8(0) == 25 {
            if let p = try code.fieldPosition(3) { bytes[p] = 101; patched = true }
            if let p = try code.fieldPosition(0) { bytes[p] = 101; patched = true }
        }
        XCTAssertTrue(patched)
        XCTAssertEqual(model.subgraphs[0].operators.last?.opcode, .softmax)
        let broken = try TFLiteModel(bytes: bytes, name: "patched.tflite")
        XCTAssertThrowsError(try Interpreter(model: broken)) { error in
            XCTAssertEqual(error as? EngineError,
                           .unsupportedOperator(model: "patched.tflite", operatorIndex: 3, op: "ABS"))
            XCTAssertTrue("\(error)".contains("ABS") && "\(error)".contains("patched.tflite"))
        }
    }

    func testCustomOperatorIsNamed() throws {
        // face_landmark_with_attention is not one of ours, but the wheel's iris model is not shipped either;
        // build a CUSTOM op by rewriting the classifier's MUL code to CUSTOM (32).
        var bytes = try ModelAsset.readFile(try TestPaths.model("canned_gesture_classifier.tflite"))
        let root = try FlatTable.root(ByteView(bytes: bytes, name: "x"), what: "Model")
        for code in try root.tables(1, what: "OperatorCode") where try code.i32(3) == 18 || code.i8(0) == 18 {
            if let p = try code.fieldPosition(3) { bytes[p] = 32 }
            if let p = try code.fieldPosition(0) { bytes[p] = 32 }
        }
        XCTAssertThrowsError(try Interpreter(model: try TFLiteModel(bytes: bytes, name: "custom.tflite"))) { error in
            XCTAssertTrue("\(error)".contains("CUSTOM"), "\(error)")
        }
    }

    func testBadArguments() throws {
        let path = try TestPaths.model("canned_gesture_classifier.tflite")
        XCTAssertThrowsError(try Interpreter(path: path, options: .init(threads: 0))) { error in
            XCTAssertTrue("\(error)".contains("threads"), "\(error)")
        }
        let interpreter = try Interpreter(path: path)
        XCTAssertThrowsError(try interpreter.setInput(0, [1, 2, 3])) { error in
            XCTAssertTrue("\(error)".contains("128"), "\(error)")
        }
        XCTAssertThrowsError(try interpreter.setInput(3, [])) { error in
            XCTAssertTrue("\(error)".contains("no input 3"), "\(error)")
        }
        XCTAssertThrowsError(try interpreter.output(5))
        // The direct-access calls: an index out of range is an error, not a trap.
        XCTAssertThrowsError(try interpreter.withInput(1) { $0.count }) {
            XCTAssertTrue("\($0)".hasSuffix("canned_gesture_classifier.tflite has 1 inputs, no input 1"), "\($0)")
        }
        XCTAssertThrowsError(try interpreter.withInputBytes(-1) { $0.count }) {
            XCTAssertTrue("\($0)".contains("no input -1"), "\($0)")
        }
        XCTAssertThrowsError(try interpreter.withOutput(1) { $0.count }) {
            XCTAssertTrue("\($0)".contains("no output 1"), "\($0)")
        }
        XCTAssertThrowsError(try interpreter.withOutputBytes(7) { $0.count }) {
            XCTAssertTrue("\($0)".contains("no output 7"), "\($0)")
        }
        XCTAssertEqual(try interpreter.withInput(0) { $0.count }, 128)
        // Still usable after the errors.
        let out = try interpreter.run([fixtureRandomFloats(seed: 3, count: 128, low: -1, high: 1)])
        XCTAssertEqual(out[0].count, 8)
        XCTAssertEqual(out[0].reduce(0, +), 1, accuracy: 1e-5)
    }

    /// Corrupted bytes in a model's tables: loading either fails with a typed error or runs.
    func testCorruptedModelsNeverCrashTheEngine() throws {
        let bytes = try ModelAsset.readFile(try TestPaths.model("gesture_embedder.tflite"))
        var state: UInt64 = 7
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Int(state >> 33)
        }
        var loaded = 0
        for _ in 0..<300 {
            var copy = bytes
            for _ in 0..<3 { copy[next() % 6000] = UInt8(next() & 0xFF) }
            guard let model = try? TFLiteModel(bytes: copy, name: "flipped.tflite") else { continue }
            do {
                let interpreter = try Interpreter(model: model)
                interpreter.invoke()
                loaded += 1
            } catch let error as EngineError {
                XCTAssertTrue(error.description.contains("flipped.tflite")
                              || error.description.contains("invalid argument"), error.description)
            }
        }
        print("corrupted embedders that still loaded and ran: \(loaded)")
    }
}
