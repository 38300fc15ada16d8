import Foundation
@testable import TasksVisionEngine
@testable import TasksVisionFormat
import TasksVisionKernels
import XCTest

/// The quantized ops one by one against ai-edge-litert: the small single-op int8/uint8 models of
/// `QuantizedOpCase` (random shapes, per-tensor and per-channel weights, zero points at the ends of their range,
/// asymmetric uint8), made here, against the outputs tools/reference_quantized_ops.py recorded for the same model
/// bytes: every output byte TFLite's, on every kernel set the CPU runs, at one and two threads. Integer sums are
/// exact and every rounding is the reference's own, so there is no tolerance.
final class QuantizedOpParityTests: XCTestCase {
    struct Manifest: Decodable {
        struct Case: Decodable {
            let name: String
            /// The SHA-256 of the model the reference ran.
            let sha256: String
            let kernels: String
            let outputs: [String]
            let builtinDiffers: Int
        }
        let cases: [Case]
    }

    static let directory = TestPaths.fixtures + "/quantized_ops/"

    func testEveryCaseGivesTFLitesBytesOnEveryKernelSet() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.directory + "manifest.json"))
        let manifest = try JSONDecoder().decode(Manifest.self, from: data)
        let cases = try QuantizedOpCase.all()
        XCTAssertGreaterThan(cases.count, 100, "cases made")
        let regenerate = "run tools/reference_quantized_ops.py after changing QuantizedOpCases.swift"
        XCTAssertEqual(manifest.cases.map(\.name), cases.map(\.name), "the manifest's cases are not the generator's: "
                       + regenerate)
        let references = Dictionary(manifest.cases.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var checked = 0, values = 0, fromBuiltins = 0, unlikeBuiltins = 0
        for c in cases {
            guard let reference = references[c.name] else { continue }
            let sha = SHA256.hexDigest(of: c.model)
            guard sha == reference.sha256 else {
                XCTFail("\(c.name): the model made here (SHA-256 \(sha)) is not the one TFLite ran "
                        + "(\(reference.sha256)): \(regenerate)")
                continue
            }
            let outputs = try reference.outputs.map { try NumpyArray.read(Self.directory + $0) }
            let model = try TFLiteModel(bytes: c.model, name: c.name + ".tflite")
            for set in KernelSet.supported() {
                for threads in [1, 2] {
                    let interpreter = try Interpreter(model: model, options: .init(threads: threads, kernels: set))
                    XCTAssertEqual(interpreter.inputs.count, c.inputs.count, "\(c.name) inputs")
                    XCTAssertEqual(interpreter.outputs.count, outputs.count, "\(c.name) outputs")
                    for (i, array) in c.inputs.enumerated() { try interpreter.setInput(i, bytes: array.data) }
                    interpreter.invoke()
                    for (i, expected) in outputs.enumerated() {
                        let ours = try interpreter.outputBytes(i)
                        XCTAssertEqual(ours.count, expected.data.count, "\(c.name) output \(i) size")
                        let differing = zip(ours, expected.data).enumerated().filter { $0.element.0 != $0.element.1 }
                        XCTAssertTrue(differing.isEmpty, "\(c.name) (\(set), \(threads) threads) output \(i): "
                                      + "\(differing.count) bytes differ from TFLite's, first at byte "
                                      + "\(differing.first?.offset ?? -1)")
                        if set == KernelSet.supported().first && threads == 1 { values += expected.elementCount }
                    }
                    checked += 1
                }
            }
            if reference.kernels.hasPrefix("builtin") { fromBuiltins += 1 }
            unlikeBuiltins += reference.builtinDiffers
        }
        print("quantized ops: \(cases.count) cases (\(fromBuiltins) on TFLite's built-in kernels), \(values) "
              + "values the same bytes on \(KernelSet.supported().map(\.rawValue).joined(separator: ", ")) at 1 and 2 "
              + "threads (\(checked) runs); TFLite's built-in kernels differ from the default interpreter in "
              + "\(unlikeBuiltins) of them")
        // The fixtures must tell the two references apart somewhere, or they would not test which one is followed.
        XCTAssertGreaterThan(unlikeBuiltins, 500)
    }
}

/// Bad quantized models: refused once, at load, by name.
final class QuantizedModelErrorTests: XCTestCase {
    typealias Q = TFLiteModel.Quantization

    /// A one-op model: `x` (input) -> op -> `y` (output), with extra constant tensors after them.
    static func model(_ op: BuiltinOperator, x: TFLiteModelWriter.Tensor, y: TFLiteModelWriter.Tensor,
                      constants: [TFLiteModelWriter.Tensor] = [], options: OperatorOptions = .none,
                      name: String = "bad.tflite") throws -> TFLiteModel {
        let inputs = [0] + (0..<constants.count).map { 2 + $0 }
        let graph = TFLiteModelWriter.Subgraph(tensors: [x, y] + constants, inputs: [0], outputs: [1],
                                               operators: [.init(op, inputs: inputs, outputs: [1], options: options)])
        return try TFLiteModel(bytes: try TFLiteModelWriter(subgraphs: [graph]).serialized(), name: name)
    }

    static func int8(_ name: String, _ shape: [Int], scale: Float = 0.1, zeroPoint: Int64 = 0,
                     type: TensorType = .int8) -> TFLiteModelWriter.Tensor {
        .init(name: name, shape: shape, type: type, quantization: Q(scales: [scale], zeroPoints: [zeroPoint]))
    }

    func message(_ model: TFLiteModel) -> String {
        do {
            _ = try Interpreter(model: model)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testUnsupportedOpsAndTypesNameTheOpTheirTypesAndTheModel() throws {
        // An op the engine runs only on float tensors.
        let abs = message(try Self.model(BuiltinOperator(rawValue: 101), x: Self.int8("x", [1, 4]),
                                         y: Self.int8("y", [1, 4]), name: "abs_int8.tflite"))
        XCTAssertEqual(abs, "abs_int8.tflite: operator 0 (ABS): int8 input 'x' -> int8 output 'y': the engine does not "
                       + "run ABS on these types")
        // A convolution on uint8 activations (a fully uint8 model).
        let w = TFLiteModelWriter.Tensor(name: "w", shape: [2, 1, 1, 3], type: .uint8, data: [UInt8](repeating: 1,
                                                                                                       count: 6),
                                         quantization: Q(scales: [0.1], zeroPoints: [128]))
        let conv = message(try Self.model(.conv2D, x: Self.int8("x", [1, 2, 2, 3], zeroPoint: 128, type: .uint8),
                                          y: Self.int8("y", [1, 2, 2, 2], zeroPoint: 128, type: .uint8),
                                          constants: [w], options: .conv2D(.init(padding: .valid, strideW: 1,
                                                                                 strideH: 1)),
                                          name: "conv_uint8.tflite"))
        XCTAssertEqual(conv, "conv_uint8.tflite: operator 0 (CONV_2D): uint8 input 'x' -> uint8 output 'y': the engine "
                       + "does not run CONV_2D on these types")
        XCTAssertFalse(conv.contains("\n"))
        // An int8 CONCATENATION whose inputs are quantized otherwise than its output (TFLite refuses it too).
        let graph = TFLiteModelWriter.Subgraph(
            tensors: [Self.int8("a", [1, 2]), Self.int8("b", [1, 2], scale: 0.2), Self.int8("y", [1, 4])],
            inputs: [0, 1], outputs: [2],
            operators: [.init(.concatenation, inputs: [0, 1], outputs: [2],
                              options: .concatenation(axis: 1, activation: .none))])
        let concat = message(try TFLiteModel(bytes: try TFLiteModelWriter(subgraphs: [graph]).serialized(),
                                             name: "concat.tflite"))
        XCTAssertTrue(concat.hasPrefix("concat.tflite: operator 0 (CONCATENATION): int8 input 'b' (scale 0.2"), concat)
    }

    func testBadScalesAndZeroPointsAreTypedErrorsNamingTheTensor() throws {
        for (scale, zeroPoint, expected) in [
            (Float(0), Int64(0), "scale 0.0; scales must be positive and finite"),
            (-0.5, 0, "scale -0.5; scales must be positive and finite"),
            (.nan, 0, "scale nan; scales must be positive and finite"),
            (0.1, 128, "zero point 128 outside the int8 range -128...127"),
            (0.1, -129, "zero point -129 outside the int8 range -128...127"),
        ] {
            let model = try Self.model(.logistic, x: Self.int8("logits", [1, 4], scale: scale, zeroPoint: zeroPoint),
                                       y: Self.int8("y", [1, 4], scale: 1 / 256, zeroPoint: -128))
            XCTAssertThrowsError(try Interpreter(model: model)) { error in
                XCTAssertEqual(error as? EngineError, .invalidQuantization(model: "bad.tflite", tensor: "logits",
                                                                          reason: expected,
                                                                          op: "operator 0 (LOGISTIC)"))
                XCTAssertEqual("\(error)", "bad.tflite: operator 0 (LOGISTIC): tensor 'logits' has invalid "
                               + "quantization: \(expected)")
            }
        }
        // uint8: its own range.
        let model = try Self.model(.logistic, x: Self.int8("x", [1, 4], zeroPoint: 256, type: .uint8),
                                   y: Self.int8("y", [1, 4], scale: 1 / 256, type: .uint8))
        XCTAssertEqual(message(model), "bad.tflite: operator 0 (LOGISTIC): tensor 'x' has invalid quantization: zero "
                       + "point 256 outside the uint8 range 0...255")
        // Per-channel weight scales that do not match the output channels.
        let w = TFLiteModelWriter.Tensor(name: "filter", shape: [3, 1, 1, 2], type: .int8,
                                         data: [UInt8](repeating: 1, count: 6),
                                         quantization: Q(scales: [0.1, 0.2], zeroPoints: [0, 0]))
        let b = TFLiteModelWriter.Tensor(name: "bias", shape: [3], type: .int32, data: [UInt8](repeating: 0, count: 12))
        let conv = try Self.model(.conv2D, x: Self.int8("x", [1, 2, 2, 2]), y: Self.int8("y", [1, 2, 2, 3]),
                                  constants: [w, b], options: .conv2D(.init(padding: .valid, strideW: 1, strideH: 1)))
        XCTAssertEqual(message(conv), "bad.tflite: operator 0 (CONV_2D): tensor 'filter' has invalid quantization: 2 "
                       + "scales along dimension 0 of [3, 1, 1, 2]; expected 3 along dimension 0")
        // An int8 activation without quantization parameters.
        let plain = try Self.model(.logistic, x: .init(name: "x", shape: [1, 4], type: .int8),
                                   y: Self.int8("y", [1, 4], scale: 1 / 256, zeroPoint: -128))
        XCTAssertEqual(message(plain), "bad.tflite: operator 0 (LOGISTIC): tensor 'x' has invalid quantization: int8 "
                       + "without a scale and zero point")
    }

    /// The float calls refuse a quantized input or output by name; the byte calls check their sizes.
    func testQuantizedInputsAndOutputsTakeBytes() throws {
        let model = try Self.model(.logistic, x: Self.int8("x", [1, 4], scale: 0.5, zeroPoint: 3),
                                   y: Self.int8("y", [1, 4], scale: 1 / 256, zeroPoint: -128))
        let interpreter = try Interpreter(model: model)
        XCTAssertEqual(interpreter.inputs[0].quantization, QuantizationParameters(scale: 0.5, zeroPoint: 3))
        XCTAssertEqual(interpreter.inputs[0].byteCount, 4)
        XCTAssertThrowsError(try interpreter.setInput(0, [0, 0, 0, 0])) {
            XCTAssertEqual("\($0)", "invalid argument: input 0 of bad.tflite is x [1, 4] int8 (scale 0.5, zero point "
                           + "3), not float32: use setInput(_:bytes:)")
        }
        XCTAssertThrowsError(try interpreter.setInput(0, bytes: [1, 2, 3])) {
            XCTAssertTrue("\($0)".contains("takes 4 bytes (4 int8 values [1, 4]), got 3"), "\($0)")
        }
        XCTAssertThrowsError(try interpreter.output(0)) { XCTAssertTrue("\($0)".contains("use outputBytes")) }
        // The direct-access calls throw the same errors rather than trap.
        XCTAssertThrowsError(try interpreter.withInput(0) { $0.count }) {
            XCTAssertTrue("\($0)".hasSuffix("not float32: use withInputBytes(_:_:)"), "\($0)")
        }
        XCTAssertThrowsError(try interpreter.withOutput(0) { $0.count }) {
            XCTAssertTrue("\($0)".hasSuffix("not float32: use withOutputBytes(_:_:)"), "\($0)")
        }
        XCTAssertEqual(try interpreter.withInputBytes(0) { $0.count }, 4)
        XCTAssertEqual(try interpreter.withOutputBytes(0) { $0.count }, 4)
        // Real values -1.5, 0, 1.5, 62: the sigmoid, quantized to 1/256 steps from -128.
        try interpreter.setInput(0, bytes: [Int8(0), 3, 6, 127].map { UInt8(bitPattern: $0) })
        interpreter.invoke()
        let y = try interpreter.outputBytes(0).map { Int(Int8(bitPattern: $0)) }
        let real = y.map { interpreter.outputs[0].quantization?.dequantize($0) ?? .nan }
        let expected: [Float] = [-1.5, 0, 1.5, 62].map { 1 / (1 + exp(-$0)) }
        for (r, e) in zip(real, expected) { XCTAssertEqual(r, e, accuracy: 1 / 256) }  // the top saturates at 255/256
        XCTAssertEqual(y[1], 0, "sigmoid(0) = 0.5 is 128 steps above -128")
    }
}
