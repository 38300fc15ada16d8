import Foundation
import TasksVisionFormat
import XCTest

/// The generator of the quantized op cases: stable, and the writer of the models and inputs the reference script
/// runs through TFLite:
///
///     TASKSVISION_WRITE_QUANTIZED_OPS=/tmp/qops swift test -c release -Xswiftc -enable-testing \
///         --filter QuantizedOpCaseTests
///
/// writes `<case>.tflite`, `<case>__in<i>.npy` and `cases.json` (the names in order, with their files) there;
/// tools/reference_quantized_ops.py runs this itself.
final class QuantizedOpCaseTests: XCTestCase {
    static let environmentVariable = "TASKSVISION_WRITE_QUANTIZED_OPS"

    /// splitmix64 and FNV-1a give their published values, so the streams cannot drift with a refactoring.
    func testTheGeneratorIsSplitmix64SeededByFNV1a() {
        var zero = CaseRandom(seed: 0)
        XCTAssertEqual([zero.next(), zero.next()], [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4])
        XCTAssertEqual(CaseRandom.fnv1a(""), 0xCBF2_9CE4_8422_2325)
        XCTAssertEqual(CaseRandom.fnv1a("a"), 0xAF63_DC4C_8601_EC8C)
        var r = CaseRandom(seed: 7)
        for _ in 0..<1000 {
            XCTAssertTrue((-3...4).contains(r.int(-3...4)))
            let f = r.float(0.5, 2)
            XCTAssertTrue(f >= 0.5 && f < 2, "\(f)")
        }
    }

    func testCasesAreTheSameEachTimeAndWellFormed() throws {
        let cases = try QuantizedOpCase.all()
        XCTAssertEqual(Set(cases.map(\.name)).count, cases.count, "case names are unique")
        XCTAssertEqual(cases.count, 105)
        for (a, b) in zip(cases, try QuantizedOpCase.all()) {
            XCTAssertEqual(a.model, b.model, a.name)
            XCTAssertEqual(a.inputs, b.inputs, a.name)
        }
        for c in cases {
            let model = try TFLiteModel(bytes: c.model, name: c.name)
            let graph = try XCTUnwrap(model.subgraphs.first)
            XCTAssertEqual(graph.operators.count, 1, c.name)
            XCTAssertEqual(graph.inputs.count, c.inputs.count, c.name)
            for (i, array) in zip(graph.inputs, c.inputs) {
                XCTAssertEqual(graph.tensors[i].shape, array.shape, c.name)
                XCTAssertEqual(graph.tensors[i].shape.reduce(1, *) * graph.tensors[i].type.byteSize,
                               array.data.count, c.name)
            }
        }
        guard let folder = ProcessInfo.processInfo.environment[Self.environmentVariable], !folder.isEmpty else {
            return
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var list: [[String: Any]] = []
        for c in cases {
            try Data(c.model).write(to: URL(fileURLWithPath: folder + "/\(c.name).tflite"))
            var inputs: [String] = []
            for (i, array) in c.inputs.enumerated() {
                inputs.append("\(c.name)__in\(i).npy")
                try array.write(folder + "/" + inputs[i])
            }
            list.append(["name": c.name, "model": "\(c.name).tflite", "inputs": inputs])
        }
        let json = try JSONSerialization.data(withJSONObject: ["cases": list], options: [.prettyPrinted])
        try json.write(to: URL(fileURLWithPath: folder + "/cases.json"))
        print("quantized op cases: \(cases.count) written to \(folder)")
    }
}
