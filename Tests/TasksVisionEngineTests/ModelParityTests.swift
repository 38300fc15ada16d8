import Foundation
@testable import TasksVisionEngine
import TasksVisionFormat
import TasksVisionKernels
import XCTest

/// Every model's outputs against the TFLite interpreter's (tools/reference_engine.py),
/// element by element. On an x86 kernel set that sums as XNNPACK does (`KernelSet.matchesX86XNNPACK(on:)`)
/// they must be XNNPACK's bits (on AVX-512 without exception; see `matchesXNNPACK`; the fixtures are
/// x86's, and XNNPACK's arm64 build sums otherwise in named layers: tools/arm64_check.sh); on any
/// set: |ours - tflite| / max(1, |tflite|) must be within 1e-4, or within three times the
/// largest drift TFLite's own kernels show against XNNPACK on that output (`tfliteSpread`),
/// whichever is larger. Deep models such as the pose landmark networks amplify float32
/// rounding: TFLite's builtin kernels differ from its XNNPACK delegate by up to 6e-3 there,
/// so no float32 engine that sums in another order can meet 1e-4 on every element of those
/// outputs.
final class ModelParityTests: XCTestCase {
    struct Manifest: Decodable {
        struct InputSpec: Decodable {
            let kind: String
            let seed: UInt64?
            let low: Float?
            let high: Float?
            let file: String?
            let mean: Float?
            let std: Float?
            /// "uint8" for a quantized model's pixels or random bytes (the floor of values in [low, high)).
            let dtype: String?
        }
        struct OutputSpec: Decodable { let file: String; let shape: [Int]; let stride: Int; let tfliteSpread: Float }
        struct Case: Decodable { let name: String; let inputs: [InputSpec]; let outputs: [OutputSpec] }
        struct Model: Decodable { let key: String; let files: [String]; let cases: [Case] }
        let models: [Model]
    }

    static let tolerance: Float = 1e-4

    /// Units in the last place between two floats of the same sign (a large number otherwise).
    static func ulps(_ a: Float, _ b: Float) -> Int {
        guard a.sign == b.sign, a.isFinite, b.isFinite else { return a == b ? 0 : Int(Int32.max) }
        return abs(Int(a.bitPattern) - Int(b.bitPattern))
    }

    /// On a set that sums as XNNPACK does, outputs equal XNNPACK's bit for bit. The fixtures come
    /// from XNNPACK's AVX-512 kernels, and its sigmoid and softmax are per-ISA approximations
    /// (`XNNPACKElementwise` reproduces the AVX-512 and AVX2 ones), hence two named exceptions:
    /// on the other sets, single values out of LOGISTIC (hand presence and handedness, the pose
    /// flag) within 2 ulp; on a set without XNNPACK's x86 softmax (portable without AVX2), the classifiers'
    /// SOFTMAX outputs within 2 ulp, or 1e-9 for probabilities far below anything reported, and the blendshape
    /// scores (a LOGISTIC of 52 values) within 2 ulp.
    static func matchesXNNPACK(_ ours: Float, _ reference: Float, key: String, elements: Int, set: KernelSet) -> Bool {
        if ours.bitPattern == reference.bitPattern { return true }
        if elements == 1 && set != .avx512 { return ulps(ours, reference) <= 2 }
        // face_blendshapes ends in a LOGISTIC of its 52 scores: the portable set's formula, within 2 ulp.
        if key == "face_blendshapes" && set != .avx512 && set != .avx2 { return ulps(ours, reference) <= 2 }
        if key.contains("classifier") && set != .avx512 && set != .avx2 {
            return ulps(ours, reference) <= 2 || abs(ours - reference) <= 1e-9
        }
        return false
    }

    static func manifest(_ directory: String = "engine") throws -> Manifest {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.fixtures + "/\(directory)/manifest.json"))
        return try JSONDecoder().decode(Manifest.self, from: data)
    }

    static func inputs(for c: Manifest.Case, interpreter: Interpreter) throws -> [[Float]] {
        try c.inputs.enumerated().map { i, spec in
            let count = interpreter.inputs[i].elementCount
            switch spec.kind {
            case "random":
                let values = fixtureRandomFloats(seed: spec.seed ?? 0, count: count, low: spec.low ?? 0,
                                                 high: spec.high ?? 1)
                return spec.dtype == "uint8" ? values.map { $0.rounded(.down) } : values
            case "pixels":
                let pixels = try NumpyArray.read(TestPaths.fixtures + "/engine/" + (spec.file ?? ""))
                if spec.dtype == "uint8" { return pixels.floats() }
                let mean = spec.mean ?? 0, std = spec.std ?? 1
                return pixels.floats().map { ($0 - mean) / std }
            default:
                throw CocoaError(.featureUnsupported)
            }
        }
    }

    /// Runs a case: float inputs as they are, a uint8 input's values as its bytes; every output as floats (a
    /// quantized output's integers).
    static func run(_ interpreter: Interpreter, _ c: Manifest.Case) throws -> [[Float]] {
        for (i, values) in try inputs(for: c, interpreter: interpreter).enumerated() {
            switch interpreter.inputs[i].type {
            case .uint8: try interpreter.setInput(i, bytes: values.map { UInt8($0) })
            case .int8: try interpreter.setInput(i, bytes: values.map { UInt8(bitPattern: Int8($0)) })
            default: try interpreter.setInput(i, values)
            }
        }
        interpreter.invoke()
        return try interpreter.outputs.enumerated().map { i, o in
            switch o.type {
            case .uint8: return try interpreter.outputBytes(i).map { Float($0) }
            case .int8: return try interpreter.outputBytes(i).map { Float(Int8(bitPattern: $0)) }
            default: return try interpreter.output(i)
            }
        }
    }

    /// Whether a model's arithmetic is integer (its activations quantized): then every kernel set gives
    /// TFLite-XNNPACK's bytes, with no tolerance and no exception.
    static func isQuantized(_ interpreter: Interpreter) -> Bool {
        (interpreter.inputs + interpreter.outputs).contains { $0.quantization != nil }
    }

    /// Largest error of the model on its cases, relative to max(1, |reference|).
    @discardableResult
    func checkModel(_ key: String, threads: Int = 1) throws -> Float {
        let manifest = try Self.manifest()
        guard let entry = manifest.models.first(where: { $0.key == key }) else {
            XCTFail("no fixture for \(key)"); return .infinity
        }
        var worst: Float = 0
        // Per output: the largest drift of TFLite's own kernels over all cases.
        var spread = [Float](repeating: 0, count: entry.cases.first?.outputs.count ?? 0)
        for c in entry.cases {
            for (i, o) in c.outputs.enumerated() where i < spread.count { spread[i] = max(spread[i], o.tfliteSpread) }
        }
        for file in entry.files {
            let interpreter = try Interpreter(path: try TestPaths.model(file), options: .init(threads: threads))
            let quantized = Self.isQuantized(interpreter)
            for c in entry.cases {
                let outputs = try Self.run(interpreter, c)
                XCTAssertEqual(outputs.count, c.outputs.count, "\(file) \(c.name): output count")
                for (index, (o, spec)) in zip(outputs, c.outputs).enumerated() {
                    let tolerance = quantized ? 0 : max(Self.tolerance, 3 * spread[index])
                    let reference = try NumpyArray.read(TestPaths.fixtures + "/engine/" + spec.file).floats()
                    XCTAssertEqual(o.count, spec.shape.reduce(1, *), "\(file) \(c.name) \(spec.file): size")
                    var caseWorst: Float = 0, at = 0
                    for (i, r) in reference.enumerated() {
                        let ours = o[i * spec.stride]
                        let err = abs(ours - r) / max(1, abs(r))
                        if !(err <= caseWorst) { caseWorst = err.isNaN ? .infinity : err; at = i * spec.stride }
                    }
                    XCTAssertLessThanOrEqual(caseWorst, tolerance,
                                             "\(file) \(c.name) \(spec.file): element \(at) is \(o[at])")
                    // The fixtures are x86's: XNNPACK's arm64 build sums otherwise in layers docs/engine.md names.
                    if quantized {
                        let differing = reference.indices.filter {
                            o[$0 * spec.stride].bitPattern != reference[$0].bitPattern
                        }
                        XCTAssertEqual(differing.count, 0, "\(file) \(c.name) \(spec.file) (\(interpreter.kernelSet), "
                                       + "\(threads) threads): values that differ from TFLite-XNNPACK's, first at "
                                       + "\(differing.first.map { $0 * spec.stride } ?? -1)")
                    } else if interpreter.kernelSet.matchesX86XNNPACK(on: .current) {
                        // XNNPACK's own results, bit for bit, but for two named exceptions.
                        var ulps = 0, differing = 0, outside = 0
                        for (i, r) in reference.enumerated() where o[i * spec.stride].bitPattern != r.bitPattern {
                            differing += 1
                            ulps = max(ulps, Self.ulps(o[i * spec.stride], r))
                            if !Self.matchesXNNPACK(o[i * spec.stride], r, key: key, elements: reference.count,
                                                    set: interpreter.kernelSet) { outside += 1 }
                        }
                        XCTAssertEqual(outside, 0, "\(file) \(c.name) \(spec.file): \(differing) of \(reference.count) "
                                                   + "values differ from XNNPACK's (by up to \(ulps) ulp), \(outside) "
                                                   + "beyond the named exceptions")
                        if differing > 0 {
                            print("parity \(key) \(c.name) output \(index): \(differing) of \(reference.count) values "
                                  + "\(ulps) ulp from XNNPACK's (\(interpreter.kernelSet))")
                        }
                    }
                    if caseWorst > Self.tolerance {
                        print("parity \(key) \(c.name) output \(index): error \(caseWorst) above 1e-4; TFLite's own "
                              + "kernels drift \(spec.tfliteSpread)")
                    }
                    worst = max(worst, caseWorst)
                }
            }
        }
        print("parity \(key) threads=\(threads): largest error \(worst)")
        return worst
    }

    func testPalmDetectionFull() throws { try checkModel("palm_detection_full") }
    func testPalmDetectionLite() throws { try checkModel("palm_detection_lite") }
    func testHandLandmarkFull() throws { try checkModel("hand_landmark_full") }
    func testHandLandmarkLite() throws { try checkModel("hand_landmark_lite") }
    func testFaceDetectionShortRange() throws { try checkModel("face_detection_short_range") }
    func testFaceDetectionFullRangeSparse() throws { try checkModel("face_detection_full_range_sparse") }
    func testFaceDetectionFullRangeDense() throws { try checkModel("face_detection_full_range") }
    func testPoseDetection() throws { try checkModel("pose_detection") }
    func testPoseLandmarkFull() throws { try checkModel("pose_landmark_full") }
    func testPoseLandmarkLite() throws { try checkModel("pose_landmark_lite") }
    func testGestureEmbedder() throws {
        try checkModel("gesture_embedder")
        // Its six residual ADDs after a FULLY_CONNECTED run in the product's epilogue, and its six batch normalizations
        // (MUL, then ADD of a constant) as one layer each; the parity above holds with both.
        let interpreter = try Interpreter(path: try TestPaths.model("gesture_embedder.tflite"))
        XCTAssertEqual(interpreter.layers.filter { $0.kind == "ADD" }.count, 1, "ADDs left after fusion")
        XCTAssertEqual(interpreter.layers.filter { $0.kind == "MUL" }.count, 6)
        XCTAssertEqual(interpreter.layers.filter { $0.kind == "FULLY_CONNECTED" }.count, 9)
    }
    func testFaceLandmarksDetector() throws { try checkModel("face_landmarks_detector") }
    /// MEAN over the last axis and other axes, SUM, SQRT, RSQRT, NEG, SQUARED_DIFFERENCE, DIV, SUB, TRANSPOSE,
    /// STRIDED_SLICE: XNNPACK's bits on every x86 set, its SQRT and RSQRT from the CPU's own estimate.
    func testFaceBlendshapes() throws { try checkModel("face_blendshapes") }
    func testCannedGestureClassifier() throws { try checkModel("canned_gesture_classifier") }
    // MediaPipe's custom Convolution2DTransposeBias, HARD_SWISH, AVERAGE_POOL_2D (MEAN in the landscape model).
    /// selfie_segmenter.tflite and selfie_segmentation.tflite (the same network, other metadata).
    func testSelfieSegmenter() throws { try checkModel("selfie_segmenter") }
    func testSelfieSegmentationLandscape() throws { try checkModel("selfie_segmentation_landscape") }
    func testCustomGestureClassifier() throws { try checkModel("custom_gesture_classifier") }
    /// The int8 models (MediaPipe's default image classifier and object detector): TFLite-XNNPACK's bytes, every
    /// value, on random full-range uint8 inputs and on photos, at one and two threads.
    func testEfficientNetLite0Int8() throws {
        try checkModel("efficientnet_lite0")
        try checkModel("efficientnet_lite0", threads: 2)
    }
    func testEfficientDetLite0Int8() throws {
        try checkModel("efficientdet_lite0")
        try checkModel("efficientdet_lite0", threads: 2)
    }
    func testModelMakerClassifierWithoutMetadata() throws {
        try checkModel("custom_gesture_classifier_modelmaker_testdata")
    }

    /// XNNPACK on the first Zen (AMD family 23, models 00h-1Fh), whose GEMMs sum in rotated quads
    /// (`Microkernels.rotatedQuadsGEMM`): TFLite's outputs under qemu emulating an EPYC 7001
    /// (tools/reference_engine.py --emulated EPYC). The AVX2 set, told it runs on such a CPU (AVX2 and FMA, no
    /// AVX-512, so XNNPACK's AVX2 sigmoid too), gives them bit for bit, every value, at 1 and 2 threads.
    func testFirstZenAsEmulated() throws {
        guard KernelSet.avx2.isSupported() else { throw XCTSkip("the AVX2 set needs AVX2 and FMA") }
        let naples = CPUFeatures(flags: ["sse2", "avx", "avx2", "fma"], modelName: "AMD EPYC 7601",
                                 vendor: "AuthenticAMD", family: 23, model: 1)
        let emulated = try Self.manifest("engine/emulated-EPYC"), x86 = try Self.manifest()
        var values = 0, unlikeOtherCPUs = 0
        for model in emulated.models {
            for threads in [1, 2] {
                var options = Interpreter.Options(threads: threads, kernels: .avx2)
                options.processor = naples
                let interpreter = try Interpreter(path: try TestPaths.model(model.files[0]), options: options)
                for c in model.cases {
                    let outputs = try interpreter.run(try Self.inputs(for: c, interpreter: interpreter))
                    for (o, spec) in zip(outputs, c.outputs) {
                        let reference = try NumpyArray.read(TestPaths.fixtures + "/engine/emulated-EPYC/" + spec.file)
                            .floats()
                        let ours = stride(from: 0, to: o.count, by: spec.stride).map { o[$0] }
                        XCTAssertEqual(ours.count, reference.count, "\(model.key) \(c.name) \(spec.file)")
                        let differing = zip(ours, reference).filter { $0.bitPattern != $1.bitPattern }.count
                        XCTAssertEqual(differing, 0, "\(model.key) \(c.name) \(spec.file), \(threads) threads: values "
                                                     + "that differ from XNNPACK's on the first Zen")
                        values += reference.count
                        if threads == 1, x86.models.contains(where: { $0.key == model.key }) {
                            let other = try NumpyArray.read(TestPaths.fixtures + "/engine/" + spec.file).floats()
                            unlikeOtherCPUs += zip(other, reference).filter { $0.bitPattern != $1.bitPattern }.count
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(values, 0, "fixtures read")
        XCTAssertGreaterThan(unlikeOtherCPUs, values / 10, "the first Zen's sums differ from other x86 CPUs'")
        print("first Zen (emulated): \(values) values the same bits; \(unlikeOtherCPUs) differ on other x86 CPUs")
    }

    /// Two and three threads give the same bits as one (interleaved blocks in bands
    /// included), run after run (which worker takes which item depends on timing; three
    /// threads on a two-core machine make it vary more).
    func testDeterministicAcrossThreadCounts() throws {
        for name in ["palm_detection_full.tflite", "pose_detection.tflite", "face_detection_full_range_sparse.tflite",
                     "hand_landmark_lite.tflite", "pose_landmarks_detector.tflite", "selfie_segmenter.tflite"] {
            let path = try TestPaths.model(name)
            let one = try Interpreter(path: path, options: .init(threads: 1))
            let input = fixtureRandomFloats(seed: 7, count: one.inputs[0].elementCount, low: -1, high: 1)
            let a = try one.run([input])
            // Layer after layer and interleaved (blocks in bands, one pipeline per thread), each against
            // itself on one thread: on the portable set the two differ (OpenBLAS's calls of other shapes
            // sum otherwise); on the FMA sets they are the same bits, which the first comparison checks.
            var single: [Bool: [[Float]]] = [one.options.interleavesBlocks ?? !one.kernelSet.fusesMultiplyAdd: a]
            for interleaved in [false, true] where single[interleaved] == nil {
                single[interleaved] = try Interpreter(path: path,
                                                      options: .init(threads: 1,
                                                                     interleavesBlocks: interleaved)).run([input])
            }
            if one.kernelSet.fusesMultiplyAdd {
                XCTAssertEqual(single[false]?.map { $0.map(\.bitPattern) }, single[true]?.map { $0.map(\.bitPattern) },
                               name)
            }
            for threads in [2, 3] {
                for interleaved in [false, true] {
                    let a = single[interleaved] ?? a
                    let many = try Interpreter(path: path,
                                               options: .init(threads: threads, interleavesBlocks: interleaved))
                    if interleaved && many.kernelSet.fusesMultiplyAdd && name.hasPrefix("hand_landmark") {
                        XCTAssertTrue(many.layers.contains {
                            (($0 as? ConvolutionThenDepthwiseLayer)?.bands ?? 1) == threads
                        },
                                      "\(name): banded blocks at \(threads) threads")
                    }
                    for run in 0..<3 {
                        let b = try many.run([input])
                        for i in 0..<a.count {
                            XCTAssertEqual(a[i].map(\.bitPattern), b[i].map(\.bitPattern),
                                "\(name) output \(i): 1 vs \(threads) threads, interleaved \(interleaved), run \(run)")
                        }
                    }
                }
            }
            let c = try one.run([input])
            for i in 0..<a.count {
                XCTAssertEqual(a[i].map(\.bitPattern), c[i].map(\.bitPattern), "\(name) output \(i): run to run")
            }
        }
    }
}
