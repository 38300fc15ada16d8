import Foundation
@testable import TasksVisionEngine
import TasksVisionFormat
import TasksVisionKernels
import TasksVisionKernelsAVX2
import TasksVisionKernelsAVX512
import XCTest

/// The vector kernels of the elementwise ops, pooling and dilated depthwise convolutions against naive scalar
/// references of XNNPACK's arithmetic, bit for bit, on every kernel set this CPU runs (and the arm64 set's Swift
/// vectors, which run anywhere): odd lengths and tails, broadcast shapes, NaN, infinities and signed zeros where
/// XNNPACK's kernels define the result, and the split over three threads.
final class VectorKernelTests: KernelTestCase {
    /// Every set this CPU runs, and the arm64 set (plain Swift vectors on any processor).
    var sets: [KernelSet] {
        KernelSet.supported().contains(.neon) ? KernelSet.supported() : KernelSet.supported() + [.neon]
    }

    func differing(_ a: [Float], _ b: [Float]) -> Int {
        zip(a, b).filter { $0.bitPattern != $1.bitPattern && !($0.isNaN && $1.isNaN) }.count + abs(a.count - b.count)
    }

    // MARK: dilated depthwise convolutions

    /// Dilated windows take the row kernel (as XNNPACK's indirection buffer lists them: the same column-by-column
    /// chain), with taps falling outside the image on either side, strides 1 and 2, every channel width.
    func testDilatedDepthwiseIsAnXNNPACKChain() {
        typealias C = KernelTests.ConvCase
        let cases: [C] = [
            // deeplab_v3's: 3x3 dilated by 2 over 33x33 (SAME: 2 on each side), and by 4.
            C(h: 33, w: 33, cin: 96, cout: 96, k: 3, stride: 1, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2,
              dilation: 2),
            C(h: 17, w: 15, cin: 48, cout: 48, k: 3, stride: 1, padTop: 4, padLeft: 4, padBottom: 4, padRight: 4,
              act: .relu6, dilation: 4),
            // Windows wider than the image (every pixel a border pixel), odd channel counts, narrow layers.
            C(h: 5, w: 6, cin: 37, cout: 37, k: 3, stride: 1, padTop: 4, padLeft: 4, padBottom: 4, padRight: 4,
              dilation: 4),
            C(h: 12, w: 13, cin: 5, cout: 5, k: 3, stride: 2, padTop: 2, padLeft: 1, padBottom: 2, padRight: 3,
              dilation: 2),
            C(h: 14, w: 11, cin: 3, cout: 3, k: 5, stride: 1, padTop: 3, padLeft: 3, padBottom: 3, padRight: 3,
              act: .relu, dilation: 2),
            C(h: 9, w: 30, cin: 24, cout: 24, k: 3, stride: 1, padTop: 0, padLeft: 3, padBottom: 0, padRight: 3,
              dilation: 3),
            C(h: 7, w: 7, cin: 200, cout: 200, k: 3, stride: 1, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2,
              dilation: 2),
        ]
        for set in sets {
            for c in cases {
                let input = random(c.h * c.w * c.cin, -3, 3), weights = random(c.k * c.k * c.cin, -1, 1)
                let bias = random(c.cin)
                let (lo, hi) = Epilogue(activation: c.act).bounds
                let twoChains = set == .neon && (10...25).contains(c.k * c.k)
                let sums = depthwiseSums(c, input: input, weights: weights, bias: bias, twoChains: twoChains)
                let ref = sums.chain.map { min(max($0, lo), hi) }, plain = sums.plain.map { min(max($0, lo), hi) }
                let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: ref.count)
                let g = ConvGeometry(batch: 1, inH: c.h, inW: c.w, inC: c.cin, outH: sums.oh, outW: sums.ow,
                                     outC: c.cin, kH: c.k, kW: c.k, strideH: c.stride, strideW: c.stride,
                                     dilationH: c.dilation, dilationW: c.dilation, padTop: c.padTop,
                                     padLeft: c.padLeft)
                let layer = DepthwiseConv2DLayer(geometry: g, multiplier: 1, input: inB.pointer, output: outB.pointer,
                                                 weights: wB.pointer,
                                                 epilogue: Epilogue(bias: bB.pointer, activation: c.act),
                                                 kernels: Microkernels(set))
                XCTAssertNotNil(layer.rowKernel, "\(set) \(c): on the set's row kernel")
                layer.run(context)
                XCTAssertEqual(differing(outB.values, ref), 0, "\(set) dilated depthwise \(c)")
                XCTAssertEqual(differing(runThreaded(layer, output: outB.pointer, count: ref.count), ref), 0,
                               "\(set) dilated depthwise \(c) on three threads")
                if ref.count > 200 {
                    XCTAssertGreaterThan(zip(plain, ref).filter { $0.0 != $0.1 }.count, 0, "\(c): the check has teeth")
                }
            }
        }
    }

    // MARK: LOGISTIC

    /// Inputs that reach every branch of XNNPACK's sigmoids: zeros, the far ends, the denormal cutoff, the
    /// subnormal results of the AVX-512 kernel (x below about -87), infinities and NaN, and a dense sweep.
    var sigmoidInputs: [Float] {
        var xs: [Float] = [0, -0.0, 1, -1, 88, -88, -87.33, -87.34, -87.5, -100, -103, -103.9, -104, -110, 1e10, -1e10,
                           1e30, -1e30, 3e38, -3e38, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity,
                           -.infinity, .nan, -.nan, Float(bitPattern: 1), Float(bitPattern: 0x8000_0001)]
        var x: Float = -120
        while x < 40 { xs.append(x); x += 0.0371 }
        return xs + random(997, -30, 30)
    }

    /// The vector sigmoids (`f32-vsigmoid-*`) give the scalar functions' bits (which tools/reference_elementwise.py
    /// checked against TFLite) on every length from 0 to 40 (the tails) and on the sweep, flushed as an inference
    /// runs and not; and TFLite's own outputs (the x86 fixtures).
    func testVectorSigmoidsAreTheScalarKernels() throws {
        #if arch(x86_64)
        var kernels: [(String, (Float) -> Float, (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void)] =
            []
        if KernelSet.avx2.isSupported() {
            kernels.append(("avx2", XNNPACKElementwise.sigmoidAVX2, TasksVisionKernelsAVX2.f32SigmoidRR1P5))
        }
        if KernelSet.avx512.isSupported() {
            kernels.append(("avx512", XNNPACKElementwise.sigmoidAVX512, TasksVisionKernelsAVX512.f32SigmoidRR2LUT32))
        }
        let xs = sigmoidInputs
        for (name, scalar, vector) in kernels {
            func run(_ x: [Float]) -> [Float] {
                var y = [Float](repeating: 7, count: x.count + 1)
                x.withUnsafeBufferPointer { xb in
                    y.withUnsafeMutableBufferPointer { yb in
                        if let xp = xb.baseAddress, let yp = yb.baseAddress { vector(xp, yp, x.count) }
                    }
                }
                XCTAssertEqual(y.last, 7, "\(name): nothing written past the end")
                return Array(y.dropLast())
            }
            for flushed in [false, true] {
                let got = flushed ? withSubnormalsFlushed { run(xs) } : run(xs)
                let want = flushed ? withSubnormalsFlushed { xs.map(scalar) } : xs.map(scalar)
                XCTAssertEqual(differing(got, want), 0, "\(name) sigmoid, flushed \(flushed)")
                for n in 0...40 {
                    let part = Array(xs[(n * 3)..<(n * 3 + n)])
                    let partWant = flushed ? withSubnormalsFlushed { part.map(scalar) } : part.map(scalar)
                    XCTAssertEqual(differing(flushed ? withSubnormalsFlushed { run(part) } : run(part), partWant), 0,
                                   "\(name) sigmoid of \(n) values, flushed \(flushed)")
                }
            }
            func floats(_ v: Any?) -> [Float] {
                ((v as? [Any]) ?? []).map { Float(bitPattern: UInt32(($0 as? Int) ?? 0)) }
            }
            let url = URL(fileURLWithPath: TestPaths.fixtures + "/engine/x86_\(name)_elementwise.json")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
            let sigmoid = json?["sigmoid"] as? [String: Any]
            let fx = floats(sigmoid?["x"]), fy = floats(sigmoid?["y"])
            XCTAssertGreaterThan(fx.count, 1500)
            XCTAssertEqual(differing(withSubnormalsFlushed { run(fx) }, fy), 0, "\(name) sigmoid against TFLite")
        }
        #endif
    }

    /// The LOGISTIC layer splits a large map over the threads in runs, with the same bits.
    func testLogisticLayerSplitsOverThreads() {
        let x = random(70_001, -12, 12)
        let inB = Buffer(x)
        for set in KernelSet.supported() {
            let outB = Buffer(zeros: x.count)
            let layer = UnaryElementwiseLayer(kind: "LOGISTIC", function: .logistic, input: inB.pointer,
                                              output: outB.pointer, count: x.count, kernels: Microkernels(set))
            layer.run(context)
            let one = outB.values
            let sigmoid = Microkernels(set).elementwise?.sigmoid ?? UnaryElementwiseLayer.logistic
            XCTAssertEqual(differing(one, x.map(sigmoid)), 0, "\(set) LOGISTIC")
            XCTAssertEqual(differing(runThreaded(layer, output: outB.pointer, count: x.count), one), 0,
                           "\(set) LOGISTIC on three threads")
        }
    }

    // MARK: RELU, RELU6, RELU_N1_TO_1

    func testClampKeepsNaNAndTails() {
        let specials: [Float] = [.nan, -.infinity, .infinity, -0.0, 0, 6, 6.000_001, -1, -1.000_000_1, 1e-45]
        for set in sets {
            for n in [0, 1, 7, 15, 16, 17, 63, 64, 65, 200] {
                let x = Array((specials + random(n, -8, 8)).prefix(n))
                for (lo, hi) in [(Float(0), Float.infinity), (0, 6), (-1, 1)] {
                    var y = [Float](repeating: 3, count: n + 1)
                    x.withUnsafeBufferPointer { xb in
                        y.withUnsafeMutableBufferPointer { yb in
                            if let xp = xb.baseAddress, let yp = yb.baseAddress {
                                Microkernels(set).clamp(xp, yp, n, lo, hi)
                            }
                        }
                    }
                    // XNNPACK's vclamp: max(lo, x) then min(hi, .) as maxps/minps, which return x when it is NaN.
                    let want = x.map { v -> Float in let m = lo > v ? lo : v; return hi < m ? hi : m }
                    XCTAssertEqual(differing(Array(y.prefix(n)), want), 0, "\(set) clamp \(lo)...\(hi) of \(n)")
                    XCTAssertEqual(y[n], 3, "\(set): nothing written past the end")
                    if n > 0 { XCTAssert(y[0].isNaN, "\(set): NaN stays NaN") }
                }
            }
        }
    }

    // MARK: binary elementwise

    /// arm64's `fmax` and `fmin`: NaN when either operand is (the first), +0 the larger of two zeros.
    static func fmax(_ a: Float, _ b: Float) -> Float {
        a.isNaN || b.isNaN ? (a.isNaN ? a : b) : a == b ? (a.sign == .minus ? b : a) : Swift.max(a, b)
    }
    static func fmin(_ a: Float, _ b: Float) -> Float {
        a.isNaN || b.isNaN ? (a.isNaN ? a : b) : a == b ? (a.sign == .minus ? a : b) : Swift.min(a, b)
    }

    /// XNNPACK's functions on one pair, in its operand order: MAXIMUM and MINIMUM as `maxps` and `minps` on x86
    /// (and the portable set), as `fmax` and `fmin` on arm64.
    static func naive(_ f: BinaryOperation, _ a: Float, _ b: Float, set: KernelSet = .avx512) -> Float {
        switch f {
        case .add: return a + b
        case .sub: return a - b
        case .mul: return a * b
        case .div: return a / b
        case .maximum: return set == .neon ? fmax(a, b) : a > b ? a : b
        case .minimum: return set == .neon ? fmin(a, b) : a < b ? a : b
        case .squaredDifference: return (a - b) * (a - b)
        case .prelu: return a < 0 ? a * b : a
        }
    }

    /// Every function over broadcast shapes (per-channel vectors, a value per row, outer products, scalars on
    /// either side, shapes that reduce to slabs of rows), against the element-by-element walk of the broadcast;
    /// where the first operand alone repeats along the innermost run, a commutative function sees its operands
    /// swapped, as XNNPACK's `opc` kernels (only MAXIMUM's and MINIMUM's NaN and zero choices tell).
    func testBinaryKernelsOverBroadcastShapes() {
        let shapes: [([Int], [Int])] = [
            ([2, 3, 37], [2, 3, 37]), ([1, 16, 16, 96], [1, 1, 1, 96]), ([1, 1, 97, 1], [1, 1, 97, 64]),
            ([1, 1, 97, 64], [1, 1, 97, 1]), ([1, 1, 97, 1], [64]), ([1, 146, 2], [1, 1, 2]), ([1, 146, 2], [1, 1, 1]),
            ([1], [5, 33]), ([33, 5], []), ([2, 1, 5, 1], [3, 1, 7]), ([3, 1, 4, 5], [1, 6, 1, 5]), ([7], [7]),
            ([1, 1, 1, 1], [1, 1, 1, 1]), ([4, 1], [1, 19]),
        ]
        let specials: [Float] = [.nan, 0, -0.0, .infinity, -.infinity, -2, 3]
        for set in sets {
            let kernels = Microkernels(set)
            for operation in [BinaryOperation.add, .sub, .mul, .div, .maximum, .minimum, .squaredDifference, .prelu] {
                for (sa, sb) in shapes {
                    guard let out = BinaryElementwiseLayer.broadcastShape(sa, sb) else { return XCTFail("\(sa) \(sb)") }
                    // Specials against each other at the front (the kernels' vector lanes and tails alike).
                    var a = random(sa.reduce(1, *), -4, 4), b = random(sb.reduce(1, *), -4, 4)
                    for i in 0..<min(a.count, 49) { a[i] = specials[i % 7] }
                    for i in 0..<min(b.count, 49) { b[i] = specials[(i / 7) % 7] }
                    let n = out.reduce(1, *)
                    let sA = BinaryElementwiseLayer.broadcastStrides(sa, to: out),
                        sB = BinaryElementwiseLayer.broadcastStrides(sb, to: out)
                    // Swapped where the first operand alone repeats along the innermost run of the reduced shape.
                    let dims = BinaryElementwiseLayer.reducedDimensions(out: out, a: sA, b: sB)
                    let swapped = operation.function.isCommutative && dims.first.map { $0.a == 0 && $0.b != 0 } == true
                    var ref = [Float](repeating: 0, count: n)
                    for i in 0..<n {
                        var rem = i, ia = 0, ib = 0
                        for d in stride(from: out.count - 1, through: 0, by: -1) {
                            let x = rem % out[d]; rem /= out[d]; ia += x * sA[d]; ib += x * sB[d]
                        }
                        ref[i] = swapped ? Self.naive(operation, b[ib], a[ia], set: set)
                            : Self.naive(operation, a[ia], b[ib], set: set)
                    }
                    for act in [FusedActivation.none, .relu6] {
                        let (lo, hi) = Epilogue(activation: act).bounds
                        let want = ref.map { v -> Float in let m = lo > v ? lo : v; return hi < m ? hi : m }
                        let aB = Buffer(a), bB = Buffer(b), oB = Buffer(zeros: n)
                        let layer = BinaryElementwiseLayer(kind: "X", operation: operation, a: aB.pointer, aShape: sa,
                                                           b: bB.pointer, bShape: sb, output: oB.pointer,
                                                           outShape: out, epilogue: Epilogue(activation: act),
                                                           kernels: kernels)
                        layer.run(context)
                        XCTAssertEqual(differing(oB.values, want), 0, "\(set) \(operation) \(sa) \(sb) \(act)")
                        XCTAssertEqual(differing(runThreaded(layer, output: oB.pointer, count: n), want), 0,
                                       "\(set) \(operation) \(sa) \(sb) \(act) on three threads")
                    }
                }
            }
        }
    }

    /// MAXIMUM and MINIMUM as `maxps` and `minps` on x86: the second operand when either is NaN, and of +0 and -0
    /// the second; the order swapped when the first operand is the broadcast one. On arm64 as `fmax` and `fmin`.
    func testMaximumAndMinimumFollowMaxpsOperandOrder() {
        let a: [Float] = [.nan, 1, 0, -0.0, 2, .nan, -.infinity, 5, 6]
        let b: [Float] = [1, .nan, -0.0, 0, 2, .nan, 3, .infinity, -1]
        for set in sets {
            func run(_ op: BinaryOperation, _ a: [Float], _ sa: [Int], _ b: [Float], _ sb: [Int]) -> [Float] {
                let out = BinaryElementwiseLayer.broadcastShape(sa, sb) ?? []
                let aB = Buffer(a), bB = Buffer(b), oB = Buffer(zeros: out.reduce(1, *))
                BinaryElementwiseLayer(kind: "X", operation: op, a: aB.pointer, aShape: sa, b: bB.pointer, bShape: sb,
                                       output: oB.pointer, outShape: out, epilogue: Epilogue(),
                                       kernels: Microkernels(set)).run(context)
                return oB.values
            }
            let max = run(.maximum, a, [9], b, [9]), min = run(.minimum, a, [9], b, [9])
            if set == .neon {
                XCTAssert(max[0].isNaN && max[1].isNaN && min[0].isNaN, "neon: fmax and fmin keep NaN")
                XCTAssertEqual(max[2].sign, .plus, "neon: fmax(+0, -0) is +0")
                XCTAssertEqual(min[3].sign, .minus, "neon: fmin(-0, +0) is -0")
                continue
            }
            XCTAssertEqual(max[0], 1, "\(set): max(NaN, 1) is 1")
            XCTAssert(max[1].isNaN, "\(set): max(1, NaN) is NaN")
            XCTAssertEqual(max[2].sign, .minus, "\(set): max(+0, -0) is -0")
            XCTAssertEqual(max[3].sign, .plus, "\(set): max(-0, +0) is +0")
            XCTAssertEqual(min[0], 1, "\(set): min(NaN, 1) is 1")
            XCTAssertEqual(min[2].sign, .minus, "\(set): min(+0, -0) is -0")
            // A scalar first: max(b, a) per element.
            let scalarFirst = run(.maximum, [.nan], [1], b, [9])
            XCTAssert(scalarFirst.allSatisfy(\.isNaN), "\(set): max with a NaN first operand broadcast is NaN")
        }
    }
}
