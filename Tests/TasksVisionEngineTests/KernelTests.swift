@testable import TasksVisionEngine
import TasksVisionFormat
import XCTest

/// Each kernel against a naive reference on odd shapes: channels that are not a
/// multiple of the vector width, 1x1 images, padding on every side, strides 1 and 2.
final class KernelTests: KernelTestCase {
    func assertClose(_ a: [Float], _ b: [Float], tolerance: Float = 1e-5, _ what: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, what, file: file, line: line)
        var worst: Float = 0, at = 0
        for i in 0..<min(a.count, b.count) {
            let e = abs(a[i] - b[i]) / max(1, abs(b[i]))
            if !(e <= worst) { worst = e.isNaN ? .infinity : e; at = i }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, "\(what): element \(at): \(a[at]) vs \(b[at])", file: file,
                                 line: line)
    }

    func activate(_ v: Float, _ act: FusedActivation) -> Float {
        switch act {
        case .relu: return max(v, 0)
        case .relu6: return min(max(v, 0), 6)
        case .reluN1To1: return min(max(v, -1), 1)
        case .tanh: return tanhf(v)
        default: return v
        }
    }

    // MARK: convolution

    struct ConvCase {
        var h, w, cin, cout, k, stride, padTop, padLeft, padBottom, padRight: Int; var act: FusedActivation = .none
        /// Inputs from one tap to the next (a dilated depthwise convolution's).
        var dilation = 1
        /// The window's span in inputs.
        var span: Int { (k - 1) * dilation + 1 }
    }

    func naiveConv(_ c: ConvCase, input: [Float], weights: [Float], bias: [Float],
                   depthwise: Bool) -> (out: [Float], oh: Int, ow: Int) {
        let oh = (c.h + c.padTop + c.padBottom - c.k) / c.stride + 1
        let ow = (c.w + c.padLeft + c.padRight - c.k) / c.stride + 1
        let cout = depthwise ? c.cin : c.cout
        var out = [Float](repeating: 0, count: oh * ow * cout)
        for oy in 0..<oh { for ox in 0..<ow { for o in 0..<cout {
            var acc = Double(bias[o])
            for ky in 0..<c.k { for kx in 0..<c.k {
                let iy = oy * c.stride - c.padTop + ky, ix = ox * c.stride - c.padLeft + kx
                if iy < 0 || iy >= c.h || ix < 0 || ix >= c.w { continue }
                if depthwise {
                    acc += Double(input[(iy * c.w + ix) * c.cin + o]) * Double(weights[(ky * c.k + kx) * cout + o])
                } else {
                    for i in 0..<c.cin {
                        acc += Double(input[(iy * c.w + ix) * c.cin + i])
                            * Double(weights[((o * c.k + ky) * c.k + kx) * c.cin + i])
                    }
                }
            } }
            out[(oy * ow + ox) * cout + o] = activate(Float(acc), c.act)
        } } }
        return (out, oh, ow)
    }

    let convCases: [ConvCase] = [
        ConvCase(h: 1, w: 1, cin: 3, cout: 5, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
        ConvCase(h: 7, w: 9, cin: 13, cout: 11, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
                 act: .relu6),
        ConvCase(h: 8, w: 8, cin: 5, cout: 7, k: 1, stride: 2, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
        ConvCase(h: 9, w: 7, cin: 3, cout: 17, k: 3, stride: 2, padTop: 1, padLeft: 0, padBottom: 1, padRight: 1,
                 act: .relu),
        ConvCase(h: 12, w: 11, cin: 3, cout: 32, k: 5, stride: 2, padTop: 1, padLeft: 2, padBottom: 2, padRight: 1),
        ConvCase(h: 6, w: 6, cin: 9, cout: 3, k: 2, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
        ConvCase(h: 1, w: 1, cin: 4, cout: 6, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
                 act: .reluN1To1),
        ConvCase(h: 40, w: 37, cin: 10, cout: 9, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
        // One output channel on small maps: a GEMM of one column (padded to 16).
        ConvCase(h: 13, w: 12, cin: 11, cout: 1, k: 3, stride: 2, padTop: 1, padLeft: 0, padBottom: 1, padRight: 1),
        ConvCase(h: 7, w: 6, cin: 19, cout: 1, k: 2, stride: 1, padTop: 0, padLeft: 0, padBottom: 1, padRight: 1),
        // One output channel on large maps: the direct dot-product path (channel tails, strides,
        // padding, and the unrolled 3x3 over 8 channels), or the padded GEMM where OpenBLAS sums as XNNPACK.
        ConvCase(h: 129, w: 66, cin: 11, cout: 1, k: 3, stride: 1, padTop: 1, padLeft: 0, padBottom: 1, padRight: 1),
        ConvCase(h: 64, w: 65, cin: 8, cout: 1, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
                 act: .relu),
        // Several tiles on the small-matrix path (tiles of 512 rows).
        ConvCase(h: 33, w: 40, cin: 8, cout: 16, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
                 act: .relu),
        ConvCase(h: 30, w: 29, cin: 3, cout: 24, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
        // 1x1 over several packed tiles, 3x3 with padding in small-matrix tiles, 3x3 packed.
        ConvCase(h: 25, w: 23, cin: 400, cout: 90, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
        ConvCase(h: 11, w: 9, cin: 20, cout: 70, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
                 act: .relu6),
        ConvCase(h: 20, w: 20, cin: 40, cout: 96, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
        // Deeper than the packed kernels sum in one block (K 451 > 448): small-matrix calls only.
        ConvCase(h: 12, w: 12, cin: 50, cout: 100, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
        // The small-matrix path in blocks of output channels (176, 176, 48) on a 7x7 map.
        ConvCase(h: 7, w: 7, cin: 112, cout: 400, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
                 act: .relu6),
    ]

    func geometry(_ c: ConvCase, oh: Int, ow: Int, cout: Int) -> ConvGeometry {
        ConvGeometry(batch: 1, inH: c.h, inW: c.w, inC: c.cin, outH: oh, outW: ow, outC: cout, kH: c.k, kW: c.k,
                     strideH: c.stride, strideW: c.stride, padTop: c.padTop, padLeft: c.padLeft)
    }

    func testConv2DAgainstNaive() {
        var packed = 0, small = 0, single = 0, blocked = 0
        for c in convCases {
            let input = random(c.h * c.w * c.cin), weights = random(c.cout * c.k * c.k * c.cin), bias = random(c.cout)
            let ref = naiveConv(c, input: input, weights: weights, bias: bias, depthwise: false)
            let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: ref.out.count)
            let layer = Conv2DLayer(geometry: geometry(c, oh: ref.oh, ow: ref.ow, cout: c.cout), input: inB.pointer,
                                    output: outB.pointer,
                                    weights: wB.pointer, epilogue: Epilogue(bias: bB.pointer, activation: c.act))
            layer.run(context)
            // Any order of summation is within (terms) x 2^-24 x sum of |terms| of the exact sum,
            // plus the final rounding: the bound for a float32 engine whatever its kernels.
            let (bound, exact) = errorBound(c, input: input, weights: weights, bias: bias)
            let out = outB.values
            let worst = out.indices.max {
                abs(Double(out[$0]) - exact[$0]) - bound[$0] < abs(Double(out[$1]) - exact[$1]) - bound[$1]
            } ?? 0
            XCTAssertLessThanOrEqual(abs(Double(out[worst]) - exact[worst]), bound[worst],
                                     "conv \(c): element \(worst) is \(out[worst]), exact \(exact[worst])")
            guard let gemm = layer.gemm else { single += 1; continue }
            let callRows = min(layer.tileRows, gemm.rowsPerCall), callColumns = min(gemm.columnBlock, c.cout)
            if callRows * callColumns * gemm.depth <= BiasFirstGEMM.smallMatrixLimit { small += 1 } else { packed += 1 }
            if gemm.columnBlock < c.cout { blocked += 1 }
        }
        XCTAssertEqual(blocked, 2, "cases in blocks of output channels (7x7 map; K above 448)")
        // Where OpenBLAS sums as XNNPACK, one channel takes the padded product instead (it keeps the chain).
        let direct = KernelSet.portable.sumsAsXNNPACK ? 0 : 2
        XCTAssertEqual(single, direct, "cases on the direct one-channel path")
        XCTAssertEqual(small, 17 - direct, "cases in tiles on the small-matrix kernels")
        XCTAssertEqual(packed, 2, "cases on the packed sgemm path")
    }

    /// Per output of a convolution: the exact sum (in Double, clamped as the activation clamps)
    /// and the largest error float32 summation in any order can make, (K + 2) x 2^-24 x
    /// (|bias| + sum |x * w|) (a clamp only brings values closer).
    func errorBound(_ c: ConvCase, input: [Float], weights: [Float],
                    bias: [Float]) -> (bound: [Double], exact: [Double]) {
        let (lo, hi) = Epilogue(activation: c.act).bounds
        let oh = (c.h + c.padTop + c.padBottom - c.k) / c.stride + 1,
            ow = (c.w + c.padLeft + c.padRight - c.k) / c.stride + 1
        var bound = [Double](repeating: 0, count: oh * ow * c.cout), exact = bound
        let terms = Double(c.k * c.k * c.cin + 2)
        for oy in 0..<oh { for ox in 0..<ow { for o in 0..<c.cout {
            var acc = Double(bias[o]), magnitude = abs(Double(bias[o]))
            for ky in 0..<c.k { for kx in 0..<c.k {
                let iy = oy * c.stride - c.padTop + ky, ix = ox * c.stride - c.padLeft + kx
                if iy < 0 || iy >= c.h || ix < 0 || ix >= c.w { continue }
                for i in 0..<c.cin {
                    let t = Double(input[(iy * c.w + ix) * c.cin + i])
                        * Double(weights[((o * c.k + ky) * c.k + kx) * c.cin + i])
                    acc += t
                    magnitude += abs(t)
                }
            } }
            let at = (oy * ow + ox) * c.cout + o
            exact[at] = min(max(acc, Double(lo)), Double(hi))
            bound[at] = terms * 0x1p-24 * magnitude
        } } }
        return (bound, exact)
    }

    func testConv2DResidualAndPReLUEpilogue() {
        let c = ConvCase(h: 5, w: 6, cin: 7, cout: 10, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0,
                         padRight: 0)
        let input = random(5 * 6 * 7), weights = random(10 * 7), bias = random(10), residual = random(5 * 6 * 10),
            alpha = random(10, 0, 0.5)
        var ref = naiveConv(c, input: input, weights: weights, bias: bias, depthwise: false).out
        for i in 0..<ref.count { let v = ref[i] + residual[i]; ref[i] = v < 0 ? v * alpha[i % 10] : v }
        let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), rB = Buffer(residual), aB = Buffer(alpha),
            outB = Buffer(zeros: ref.count)
        let layer = Conv2DLayer(geometry: geometry(c, oh: 5, ow: 6, cout: 10), input: inB.pointer, output: outB.pointer,
                                weights: wB.pointer,
                                epilogue: Epilogue(bias: bB.pointer, residual: rB.pointer, activation: .none,
                                                   alpha: aB.pointer))
        layer.run(context)
        assertClose(outB.values, ref, "conv + residual + prelu")
    }

    func testDepthwiseAgainstNaive() {
        let cases = [
            ConvCase(h: 1, w: 1, cin: 3, cout: 3, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
            ConvCase(h: 9, w: 10, cin: 13, cout: 13, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1,
                     act: .relu6),
            ConvCase(h: 11, w: 12, cin: 42, cout: 42, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2,
                     padRight: 2),
            ConvCase(h: 12, w: 12, cin: 17, cout: 17, k: 5, stride: 2, padTop: 1, padLeft: 2, padBottom: 2, padRight: 1,
                     act: .relu),
            ConvCase(h: 10, w: 9, cin: 8, cout: 8, k: 3, stride: 2, padTop: 0, padLeft: 0, padBottom: 1, padRight: 1),
            ConvCase(h: 4, w: 23, cin: 24, cout: 24, k: 3, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
            ConvCase(h: 6, w: 30, cin: 5, cout: 5, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2),
        ]
        for c in cases {
            let input = random(c.h * c.w * c.cin), weights = random(c.k * c.k * c.cin), bias = random(c.cin)
            let ref = naiveConv(c, input: input, weights: weights, bias: bias, depthwise: true)
            let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: ref.out.count)
            let layer = DepthwiseConv2DLayer(geometry: geometry(c, oh: ref.oh, ow: ref.ow, cout: c.cin), multiplier: 1,
                                             input: inB.pointer,
                                             output: outB.pointer, weights: wB.pointer,
                                             epilogue: Epilogue(bias: bB.pointer, activation: c.act))
            layer.run(context)
            assertClose(outB.values, ref.out, "depthwise \(c)")
        }
    }

    /// Every depthwise output is XNNPACK's sum bit for bit: from the bias, one fused multiply-add
    /// per tap, column by column (kx outer, ky inner), taps outside the image skipped. Covers the
    /// four-pixel interior blocks, single pixels, channel tails, clipped border pixels, the
    /// zero-bordered copy of small maps, a large padded map that is clipped instead, and a depth
    /// multiplier of 2.
    func testDepthwiseIsAChainOfFusedMultiplyAdds() {
        let cases: [(ConvCase, Int)] = [
            (ConvCase(h: 9, w: 10, cin: 13, cout: 13, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1,
                      padRight: 1), 1),
            (ConvCase(h: 11, w: 12, cin: 42, cout: 42, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2,
                      padRight: 2), 1),
            (ConvCase(h: 12, w: 12, cin: 17, cout: 17, k: 5, stride: 2, padTop: 1, padLeft: 2, padBottom: 2,
                      padRight: 1), 1),
            (ConvCase(h: 4, w: 23, cin: 24, cout: 24, k: 3, stride: 1, padTop: 0, padLeft: 0, padBottom: 0,
                      padRight: 0), 1),
            (ConvCase(h: 40, w: 37, cin: 12, cout: 12, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1,
                      padRight: 1), 1),
            (ConvCase(h: 38, w: 35, cin: 9, cout: 9, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2, padRight: 2),
             1),
            (ConvCase(h: 5, w: 4, cin: 3, cout: 6, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
             2),
            // Stride 2 on odd sizes and padding (every phase plane), more channels than a block.
            (ConvCase(h: 15, w: 13, cin: 37, cout: 37, k: 3, stride: 2, padTop: 0, padLeft: 1, padBottom: 1,
                      padRight: 0), 1),
            (ConvCase(h: 1, w: 1, cin: 5, cout: 5, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
             1),
            (ConvCase(h: 17, w: 20, cin: 6, cout: 6, k: 5, stride: 3, padTop: 2, padLeft: 1, padBottom: 2, padRight: 2),
             1),
        ]
        for (c, multiplier) in cases {
            let cout = c.cin * multiplier
            // Values with full 24-bit significands, so that a product rounded before the add shows.
            let input = random(c.h * c.w * c.cin, -3, 3), weights = random(c.k * c.k * cout), bias = random(cout)
            let (ref, unfused, oh, ow) = depthwiseSums(c, multiplier: multiplier, input: input, weights: weights,
                                                       bias: bias)
            let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias)
            var g = geometry(c, oh: oh, ow: ow, cout: cout)
            g.outC = cout
            // The Swift kernel, and the plane-wise path through OpenBLAS where its saxpy is fused.
            for planar in BLASConfiguration.axpyIsFused ? [false, true] : [false] {
                let outB = Buffer(zeros: ref.count)
                let layer = DepthwiseConv2DLayer(geometry: g, multiplier: multiplier, input: inB.pointer,
                                                 output: outB.pointer, weights: wB.pointer,
                                                 epilogue: Epilogue(bias: bB.pointer), planar: planar)
                XCTAssertEqual(layer.planes != nil, planar && multiplier == 1, "\(c): path")
                layer.run(context)
                let mismatches = zip(outB.values, ref).filter { $0.0.bitPattern != $0.1.bitPattern }.count
                XCTAssertEqual(mismatches, 0, "depthwise \(c) multiplier \(multiplier) planar \(planar): outputs that "
                                              + "differ from the fused chain")
            }
            // The check has teeth: a multiply then an add rounds differently on many outputs.
            XCTAssertGreaterThan(zip(unfused, ref).filter { $0.0 != $0.1 }.count, ref.count / 20,
                                 "depthwise \(c): the fused and unfused sums differ")
        }
    }

    func testDepthwiseWithPReLU() {
        let c = ConvCase(h: 8, w: 13, cin: 11, cout: 11, k: 5, stride: 1, padTop: 2, padLeft: 2, padBottom: 2,
                         padRight: 2)
        let input = random(8 * 13 * 11), weights = random(25 * 11), bias = random(11), alpha = random(11, 0, 0.3)
        var ref = naiveConv(c, input: input, weights: weights, bias: bias, depthwise: true).out
        for i in 0..<ref.count where ref[i] < 0 { ref[i] *= alpha[i % 11] }
        let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), aB = Buffer(alpha),
            outB = Buffer(zeros: ref.count)
        DepthwiseConv2DLayer(geometry: geometry(c, oh: 8, ow: 13, cout: 11), multiplier: 1, input: inB.pointer,
                             output: outB.pointer,
                             weights: wB.pointer, epilogue: Epilogue(bias: bB.pointer, alpha: aB.pointer)).run(context)
        assertClose(outB.values, ref, "depthwise + prelu")
    }

    func testDepthwiseMultiplier() {
        let c = ConvCase(h: 5, w: 4, cin: 3, cout: 6, k: 3, stride: 1, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1)
        let input = random(5 * 4 * 3), weights = random(9 * 6), bias = random(6)
        var ref = [Float](repeating: 0, count: 5 * 4 * 6)
        for oy in 0..<5 { for ox in 0..<4 { for o in 0..<6 {
            var acc = bias[o]
            for ky in 0..<3 { for kx in 0..<3 {
                let iy = oy - 1 + ky, ix = ox - 1 + kx
                if iy >= 0 && iy < 5 && ix >= 0 && ix < 4 {
                    acc += input[(iy * 4 + ix) * 3 + o / 2] * weights[(ky * 3 + kx) * 6 + o]
                }
            } }
            ref[(oy * 4 + ox) * 6 + o] = acc
        } } }
        let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: ref.count)
        var g = geometry(c, oh: 5, ow: 4, cout: 6); g.outC = 6
        DepthwiseConv2DLayer(geometry: g, multiplier: 2, input: inB.pointer, output: outB.pointer, weights: wB.pointer,
                             epilogue: Epilogue(bias: bB.pointer)).run(context)
        assertClose(outB.values, ref, "depthwise multiplier 2")
    }

    /// A convolution, the depthwise convolution of its output and (with and without) a pointwise
    /// projection of that, interleaved tile by tile on one thread, give exactly what they give
    /// run one after the other: GEMM tiles that end in the middle of a row, strides 1 and 2,
    /// padding on every side, 3x3 and 5x5, and small maps where the depthwise layer works from a
    /// zero-bordered copy filled as rows complete; on every kernel set the CPU supports. (On the
    /// portable set only depthwise layers on the Swift kernel interleave: where OpenBLAS's saxpy
    /// is fused they run plane by plane instead.)
    func testConvolutionThenDepthwiseInterleavedMatchesSequential() {
        // (convolution, depthwise kernel, stride, padding before, padding after)
        let cases: [(ConvCase, Int, Int, Int, Int)] = [
            (ConvCase(h: 40, w: 37, cin: 8, cout: 16, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
                      act: .relu6), 3, 1, 1, 1),
            (ConvCase(h: 41, w: 38, cin: 8, cout: 24, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0,
                      act: .relu), 3, 2, 0, 1),
            (ConvCase(h: 70, w: 66, cin: 3, cout: 16, k: 3, stride: 2, padTop: 0, padLeft: 0, padBottom: 1,
                      padRight: 1), 3, 1, 1, 1),
            (ConvCase(h: 30, w: 30, cin: 24, cout: 40, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0,
                      padRight: 0, act: .relu6), 5, 1, 2, 2),
            (ConvCase(h: 23, w: 23, cin: 16, cout: 20, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0,
                      padRight: 0), 5, 2, 1, 2),
            (ConvCase(h: 60, w: 60, cin: 130, cout: 90, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0,
                      padRight: 0), 3, 2, 0, 1),
        ]
        for set in KernelSet.supported() {
        let kernels = Microkernels(set)
        var paddedCopies = 0, directFills = 0
        for (c, k, stride, before, after) in cases {
            let oh = (c.h + c.padTop + c.padBottom - c.k) / c.stride + 1,
                ow = (c.w + c.padLeft + c.padRight - c.k) / c.stride + 1
            let d = ConvCase(h: oh, w: ow, cin: c.cout, cout: c.cout, k: k, stride: stride, padTop: before,
                             padLeft: before,
                             padBottom: after, padRight: after, act: .relu6)
            let dh = (oh + before + after - k) / stride + 1, dw = (ow + before + after - k) / stride + 1
            let input = Buffer(random(c.h * c.w * c.cin)), weights = Buffer(random(c.cout * c.k * c.k * c.cin)),
                bias = Buffer(random(c.cout))
            let dWeights = Buffer(random(k * k * c.cout)), dBias = Buffer(random(c.cout))
            let pc = ConvCase(h: dh, w: dw, cin: c.cout, cout: 12, k: 1, stride: 1, padTop: 0, padLeft: 0, padBottom: 0,
                              padRight: 0)
            let pWeights = Buffer(random(12 * c.cout)), pBias = Buffer(random(12)),
                residual = Buffer(random(dh * dw * 12))
            var results: [[Float]] = []
            // The fourth run lets the GEMM fill the depthwise layer's zero-bordered copy directly
            // (nothing else reads the convolution's output), where the shapes allow; the fifth has
            // the depthwise layer write the projection's 1-led rows (nothing else reads its output).
            for (interleaved, projected, middleRead, depthwiseRead) in [(false, true, true, true),
                                                                        (true, false, true, true),
                                                                        (true, true, true, true),
                                                                        (true, true, false, true),
                                                                       (true, true, false, false)] {
                let middle = Buffer(zeros: oh * ow * c.cout), output = Buffer(zeros: dh * dw * c.cout),
                    projection = Buffer(zeros: dh * dw * 12)
                let convolution = Conv2DLayer(geometry: geometry(c, oh: oh, ow: ow, cout: c.cout), input: input.pointer,
                                              output: middle.pointer,
                                              weights: weights.pointer,
                                              epilogue: Epilogue(bias: bias.pointer, activation: c.act),
                                              kernels: kernels)
                let depthwise = DepthwiseConv2DLayer(geometry: geometry(d, oh: dh, ow: dw, cout: c.cout), multiplier: 1,
                                                     input: middle.pointer,
                                                     output: output.pointer, weights: dWeights.pointer,
                                                     epilogue: Epilogue(bias: dBias.pointer, activation: d.act),
                                                     planar: false,
                                                     kernels: kernels)
                let project = Conv2DLayer(geometry: geometry(pc, oh: dh, ow: dw, cout: 12), input: output.pointer,
                                          output: projection.pointer,
                                          weights: pWeights.pointer,
                                          epilogue: Epilogue(bias: pBias.pointer, residual: residual.pointer),
                                          kernels: kernels)
                if interleaved {
                    XCTAssertTrue(ConvolutionThenDepthwiseLayer.canInterleave(convolution, depthwise),
                                  "\(set) \(c) then \(k)x\(k) s\(stride)")
                    XCTAssertTrue(ConvolutionThenDepthwiseLayer.canProject(depthwise, project),
                                  "\(set) \(c) then \(k)x\(k) s\(stride): projection")
                    XCTAssertGreaterThan(convolution.tileCount, 1, "\(c): several GEMM tiles")
                    if depthwise.padded != nil && projected { paddedCopies += 1 }  // three projected runs per case
                    let fused = ConvolutionThenDepthwiseLayer(convolution, depthwise,
                                                              projection: projected ? project : nil,
                                                              convolutionOutputRead: middleRead,
                                                              depthwiseOutputRead: depthwiseRead)
                    if !fused.writesConvolutionOutput { directFills += 1 }
                    XCTAssertEqual(fused.leadsProjectionRows, !depthwiseRead && !set.fusesMultiplyAdd,
                                   "\(c): depthwise output led for the projection")
                    fused.run(context)
                    if !projected { project.run(context) }
                } else {
                    convolution.run(context)
                    depthwise.run(context)
                    project.run(context)
                }
                results.append((middleRead ? middle.values : []) + (depthwiseRead ? output.values : [])
                               + projection.values)
            }
            XCTAssertEqual(results[0], results[1],
                           "\(set) \(c) then \(k)x\(k) s\(stride): interleaved differs from sequential")
            XCTAssertEqual(results[0], results[2],
                           "\(set) \(c) then \(k)x\(k) s\(stride) then 1x1: interleaved differs from sequential")
            // Filling the copy by image-row GEMM calls gives the tiles' values: each sum is one chain
            // whatever the call (on OpenBLAS's AVX-512 kernels; on others, close).
            assertClose(results[3], Array(results[0].suffix(results[3].count)), tolerance: set.sumsAsXNNPACK ? 0 : 1e-5,
                        "\(set) \(c) then \(k)x\(k) s\(stride) then 1x1, convolution output unread")
            assertClose(results[4], Array(results[0].suffix(results[4].count)), tolerance: set.sumsAsXNNPACK ? 0 : 1e-5,
                        "\(set) \(c) then \(k)x\(k) s\(stride) then 1x1 from 1-led depthwise rows")
            XCTAssertFalse(results[2].contains { $0.isNaN } || results[3].contains { $0.isNaN },
                           "\(c): every output written")
        }
        if set.fusesMultiplyAdd {
            XCTAssertGreaterThan(paddedCopies, 0, "\(set): runs through the zero-bordered copy")
            XCTAssertGreaterThan(directFills, 0, "\(set): runs where the GEMM fills the zero-bordered copy directly")
            continue
        }
        XCTAssertEqual(paddedCopies, 12, "runs through the zero-bordered copy")
        XCTAssertEqual(directFills, 8, "runs where the GEMM fills the zero-bordered copy directly")
        }
    }

    // MARK: other ops

    func testMaxPool() {
        // Channel counts below, at and past each set's vector (the overlapping last block), full
        // 2x2 windows, clipped windows at the padded edges, 3x3 windows, and NaN inputs.
        let cases = [(7, 9, 5, 2, 2, 0, 0), (6, 6, 13, 3, 2, 1, 1), (1, 1, 3, 2, 2, 0, 0), (8, 10, 28, 2, 2, 0, 0),
                     (9, 7, 37, 2, 2, 0, 0), (11, 12, 16, 3, 2, 1, 1), (5, 6, 8, 3, 1, 1, 1), (6, 7, 20, 2, 1, 0, 1)]
        for set in KernelSet.supported() {
            for (h, w, c, k, s, pt, pl) in cases {
                let oh = (h + s - 1) / s, ow = (w + s - 1) / s
                var input = random(h * w * c, -3, 3)
                input[(h * w * c) / 3] = .nan
                var ref = [Float](repeating: -.infinity, count: oh * ow * c)
                for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
                    for ky in 0..<k { for kx in 0..<k {
                        let iy = oy * s - pt + ky, ix = ox * s - pl + kx
                        guard iy >= 0 && iy < h && ix >= 0 && ix < w else { continue }
                        let x = input[(iy * w + ix) * c + ch], at = (oy * ow + ox) * c + ch
                        if x > ref[at] { ref[at] = x }
                    } }
                } } }
                let inB = Buffer(input), outB = Buffer(zeros: ref.count)
                MaxPool2DLayer(geometry: ConvGeometry(batch: 1, inH: h, inW: w, inC: c, outH: oh, outW: ow, outC: c,
                                                      kH: k,
                                                      kW: k, strideH: s, strideW: s, padTop: pt, padLeft: pl),
                               input: inB.pointer, output: outB.pointer, epilogue: Epilogue(),
                               kernels: Microkernels(set)).run(context)
                let differ = zip(outB.values, ref).filter { $0.0.bitPattern != $0.1.bitPattern }.count
                XCTAssertEqual(differ, 0, "\(set) maxpool \(h)x\(w)x\(c) k\(k) s\(s): outputs that differ")
            }
        }
    }

    func testBinaryBroadcasting() {
        let cases: [([Int], [Int])] = [([2, 3, 5], [2, 3, 5]), ([2, 3, 5], [5]), ([2, 3, 5], [1]), ([1], [4, 3]),
                                       ([2, 1, 5], [3, 1]), ([1, 21, 3], [1, 1, 3]), ([3, 1], [1, 4])]
        for (sa, sb) in cases {
            let out = BinaryElementwiseLayer.broadcastShape(sa, sb)!
            let a = random(sa.reduce(1, *)), b = random(sb.reduce(1, *))
            let n = out.reduce(1, *)
            let sA = BinaryElementwiseLayer.broadcastStrides(sa, to: out),
                sB = BinaryElementwiseLayer.broadcastStrides(sb, to: out)
            var ref = [Float](repeating: 0, count: n)
            for i in 0..<n {
                var rem = i, ia = 0, ib = 0
                for d in stride(from: out.count - 1, through: 0, by: -1) {
                    let x = rem % out[d]; rem /= out[d]; ia += x * sA[d]; ib += x * sB[d]
                }
                ref[i] = a[ia] - b[ib]
            }
            let aB = Buffer(a), bB = Buffer(b), oB = Buffer(zeros: n)
            BinaryElementwiseLayer(kind: "SUB", operation: .sub, a: aB.pointer, aShape: sa, b: bB.pointer, bShape: sb,
                                   output: oB.pointer,
                                                outShape: out, epilogue: Epilogue()).run(context)
            assertClose(oB.values, ref, tolerance: 0, "sub \(sa) \(sb)")
        }
    }

    func testBinaryFunctionsAndActivation() {
        let a = random(37, -3, 3), b = random(37, 0.5, 2)
        let aB = Buffer(a), bB = Buffer(b), oB = Buffer(zeros: 37)
        func run(_ operation: BinaryOperation, _ act: FusedActivation = .none) -> [Float] {
            BinaryElementwiseLayer(kind: "X", operation: operation, a: aB.pointer, aShape: [37], b: bB.pointer,
                                   bShape: [37], output: oB.pointer,
                                      outShape: [37], epilogue: Epilogue(activation: act)).run(context)
            return oB.values
        }
        assertClose(run(.add, .relu6), zip(a, b).map { min(max($0 + $1, 0), 6) }, tolerance: 0, "add relu6")
        assertClose(run(.mul), zip(a, b).map { $0 * $1 }, tolerance: 0, "mul")
        assertClose(run(.div), zip(a, b).map { $0 / $1 }, tolerance: 0, "div")
        assertClose(run(.maximum), zip(a, b).map { max($0, $1) }, tolerance: 0, "maximum")
        assertClose(run(.minimum), zip(a, b).map { min($0, $1) }, tolerance: 0, "minimum")
        assertClose(run(.prelu), zip(a, b).map { $0 < 0 ? $0 * $1 : $0 }, tolerance: 0, "prelu")
    }

    /// Bilinear resizing as XNNPACK computes it (its indirection setup and SSE kernel, written
    /// out here scalar): bit for bit, in the half-pixel, legacy and align-corners modes; and
    /// within float rounding of the textbook interpolation.
    func testResizeBilinearAsXNNPACK() {
        // Every set's row kernel; 37 channels run on vectors with an overlapping last block.
        let modes = [(false, true), (false, false), (true, false)]
        let cases = KernelSet.supported().flatMap { set in
            [11, 37].flatMap { c in modes.map { (set, c, $0.0, $0.1) } }
        }
        for (set, c, alignCorners, halfPixel) in cases {
            let (h, w, oh, ow) = (3, 5, 7, 10)
            let input = random(h * w * c)
            func axis(_ out: Int, _ size: Int) -> [(Int, Int, Float)] {
                let adjust = alignCorners && out != 1 ? 1 : 0
                let scale = Float(size - adjust) / Float(out - adjust)
                let offset: Float = 0.5 * scale - 0.5
                return (0..<out).map { d in
                    var s = Float(d) * scale
                    s = alignCorners || !halfPixel ? min(s, Float(size - 1)) : min(max(s + offset, 0), Float(size - 1))
                    let lo = Int(s)
                    return (lo, min(lo + 1, size - 1), s - Float(lo))
                }
            }
            let ys = axis(oh, h), xs = axis(ow, w)
            var ref = [Float](repeating: 0, count: oh * ow * c), textbook = ref
            for y in 0..<oh { for x in 0..<ow {
                let (y0, y1, ay) = ys[y], (x0, x1, ax) = xs[x]
                for ch in 0..<c {
                    func p(_ yy: Int, _ xx: Int) -> Float { input[(yy * w + xx) * c + ch] }
                    // XNNPACK's arm64 kernel fuses each product into its sum; its x86 kernel is SSE.
                    func lerp(_ a: Float, _ d: Float, _ t: Float) -> Float {
                        set == .neon ? a.addingProduct(d, t) : a + d * t
                    }
                    let top = lerp(p(y0, x0), p(y0, x1) - p(y0, x0), ax),
                        bottom = lerp(p(y1, x0), p(y1, x1) - p(y1, x0), ax)
                    ref[(y * ow + x) * c + ch] = lerp(top, bottom - top, ay)
                    textbook[(y * ow + x) * c + ch] = p(y0, x0) * (1 - ay) * (1 - ax) + p(y1, x0) * ay * (1 - ax)
                        + p(y0, x1) * (1 - ay) * ax + p(y1, x1) * ay * ax
                }
            } }
            let inB = Buffer(input), oB = Buffer(zeros: ref.count)
            ResizeBilinearLayer(input: inB.pointer, output: oB.pointer, batch: 1, inH: h, inW: w, channels: c, outH: oh,
                                outW: ow,
                                alignCorners: alignCorners, halfPixelCenters: halfPixel,
                                kernels: Microkernels(set)).run(context)
            let what = "\(set) resize \(c) channels, align \(alignCorners) half-pixel \(halfPixel)"
            XCTAssertEqual(zip(oB.values, ref).filter { $0.0.bitPattern != $0.1.bitPattern }.count, 0, what)
            assertClose(oB.values, textbook, tolerance: 1e-6, "\(what), textbook")
        }
    }

    func testPadConcatDepthToSpace() {
        let input = random(2 * 3 * 5)
        let inB = Buffer(input), oB = Buffer(zeros: 4 * 6 * 5)
        PadLayer(input: inB.pointer, inShape: [2, 3, 5], output: oB.pointer, outShape: [4, 6, 5], before: [1, 2, 0],
                 value: 0).run(context)
        for y in 0..<4 { for x in 0..<6 { for c in 0..<5 {
            let inside = y >= 1 && y < 3 && x >= 2 && x < 5
            XCTAssertEqual(oB.values[(y * 6 + x) * 5 + c], inside ? input[((y - 1) * 3 + (x - 2)) * 5 + c] : 0)
        } } }
        let a = random(2 * 3), b = random(2 * 4)
        let aB = Buffer(a), bB = Buffer(b), cB = Buffer(zeros: 14)
        ConcatenationLayer(inputs: [(UnsafePointer(aB.pointer), 3), (UnsafePointer(bB.pointer), 4)], output: cB.pointer,
                           outer: 2, channels: 7, epilogue: Epilogue()).run(context)
        XCTAssertEqual(cB.values, Array(a[0..<3]) + Array(b[0..<4]) + Array(a[3..<6]) + Array(b[4..<8]))
        let d = Array((0..<(2 * 2 * 8)).map(Float.init))
        let dB = Buffer(d), eB = Buffer(zeros: 32)
        let depthToSpace = DepthToSpaceLayer(input: dB.pointer, output: eB.pointer, batch: 1, inH: 2, inW: 2, inC: 8,
                                             block: 2)
        depthToSpace.run(context)
        // Output (y, x, c) reads input (y/2, x/2, ((y%2)*2 + x%2)*2 + c).
        var expected = [Float]()
        for y in 0..<4 { for x in 0..<4 { for c in 0..<2 {
            expected.append(d[((y / 2) * 2 + x / 2) * 8 + ((y % 2) * 2 + x % 2) * 2 + c])
        } } }
        XCTAssertEqual(eB.values, expected)
        XCTAssertEqual(runThreaded(depthToSpace, output: eB.pointer, count: 32), expected,
                       "depth to space on three threads")
    }

    /// XNNPACK's `xnn_f32_rsum_ukernel__avx512f_u32_acc2` lane by lane: two 16-lane accumulators over alternate
    /// vectors, one more whole vector into the first, the two added, the tail's lanes into the first, then
    /// `xnn_reduce_add_f32` (halves added: 16 to 8, 8 to 4, lanes 2 and 3 onto 0 and 1, lane 1 onto 0).
    static func xnnpackRowSum(_ x: [Float]) -> Float {
        var acc0 = [Float](repeating: 0, count: 16), acc1 = acc0
        var i = 0
        while x.count - i >= 32 {
            for l in 0..<16 { acc0[l] = acc0[l] + x[i + l]; acc1[l] = acc1[l] + x[i + 16 + l] }
            i += 32
        }
        if x.count - i >= 16 { for l in 0..<16 { acc0[l] = acc0[l] + x[i + l] }; i += 16 }
        for l in 0..<16 { acc0[l] = acc0[l] + acc1[l] }
        for l in 0..<16 where i + l < x.count { acc0[l] = acc0[l] + x[i + l] }
        var a8 = [Float](repeating: 0, count: 8), a4 = [Float](repeating: 0, count: 4)
        for l in 0..<8 { a8[l] = acc0[l] + acc0[l + 8] }
        for l in 0..<4 { a4[l] = a8[l] + a8[l + 4] }
        let a0 = a4[0] + a4[2], a1 = a4[1] + a4[3]
        return a0 + a1
    }

    /// SUM and MEAN over the last axis for every run length to 100 (the kernel's loop, its one extra vector, its
    /// tail): the lane-by-lane model's bits; over an inner axis (XNNPACK's f32-rdsum): the rows in order.
    func testReduceSumOrders() {
        for count in 1...100 {
            let x = random(2 * count, -4, 4), xB = Buffer(x), oB = Buffer(zeros: 2)
            for function in [ReduceLayer.Function.sum, .mean] {
                ReduceLayer(kind: "SUM", function: function, input: xB.pointer, inShape: [2, count], axes: [1],
                            output: oB.pointer).run(context)
                for r in 0..<2 {
                    let sum = Self.xnnpackRowSum(Array(x[(r * count)..<((r + 1) * count)]))
                    let expected = function == .sum ? sum : sum * (1 / Float(count))
                    XCTAssertEqual(oB.values[r].bitPattern, expected.bitPattern, "\(function) of \(count), row \(r)")
                }
            }
        }
        // [1, 146, 1] over axis 1 (the blendshapes model's second MEAN): an inner axis, rows in order.
        let x = random(146, 0, 3), xB = Buffer(x), oB = Buffer(zeros: 1)
        ReduceLayer(kind: "MEAN", function: .mean, input: xB.pointer, inShape: [1, 146, 1], axes: [1],
                    output: oB.pointer).run(context)
        var inOrder: Float = 0
        for v in x { inOrder += v }
        XCTAssertEqual(oB.values[0].bitPattern, (inOrder * (1 / Float(146))).bitPattern)
        // With MediaPipe's reductions (axes of size 1 dropped first): one contiguous run.
        ReduceLayer(kind: "MEAN", function: .mean, input: xB.pointer, inShape: [1, 146, 1], axes: [1],
                    output: oB.pointer, unitAxesContiguous: true).run(context)
        XCTAssertEqual(oB.values[0].bitPattern, (Self.xnnpackRowSum(x) * (1 / Float(146))).bitPattern)
        XCTAssertNotEqual(Self.xnnpackRowSum(x).bitPattern, inOrder.bitPattern, "the two orders differ on this input")
    }

    /// TRANSPOSE against index arithmetic, for every permutation of rank-4 shapes (the tiled path: an inner output
    /// axis read with a stride, 4 x 4 blocks with edges of 1 to 3) and the blendshapes model's swaps.
    func testTranspose() {
        func permutations(_ a: [Int]) -> [[Int]] {
            a.count <= 1 ? [a] : a.indices.flatMap { i in
                permutations(Array(a[..<i] + a[(i + 1)...])).map { [a[i]] + $0 } }
        }
        for shape in [[2, 3, 4, 5], [1, 1, 11, 13], [3, 9, 1, 6], [1, 1, 64, 97]] {
            let n = shape.reduce(1, *), x = random(n), xB = Buffer(x), oB = Buffer(zeros: n)
            for p in permutations([0, 1, 2, 3]) {
                let layer = TransposeLayer(input: xB.pointer, inShape: shape, permutation: p, output: oB.pointer)
                layer.run(context)
                let out = p.map { shape[$0] }
                var expected = [Float](repeating: 0, count: n)
                for o in 0..<n {
                    var rest = o, index = [Int](repeating: 0, count: 4)
                    for d in stride(from: 3, through: 0, by: -1) { index[d] = rest % out[d]; rest /= out[d] }
                    var source = [Int](repeating: 0, count: 4)
                    for d in 0..<4 { source[p[d]] = index[d] }
                    expected[o] = x[((source[0] * shape[1] + source[1]) * shape[2] + source[2]) * shape[3] + source[3]]
                }
                XCTAssertEqual(oB.values, expected, "\(shape) permutation \(p)")
                if shape == [1, 1, 64, 97] && p == [0, 1, 3, 2] { XCTAssertNotNil(layer.tiledAxes, "tiled") }
            }
        }
    }

    /// NEG exactly; SQRT and RSQRT as XNNPACK's kernel for this CPU (the CPU's estimate and one Newton-Raphson step)
    /// within 1 ulp of the correctly rounded results, with XNNPACK's specials (SQRT(0) = 0, RSQRT(+inf) = 0,
    /// RSQRT(0) = NaN).
    func testNegSqrtRsqrt() {
        var x = random(100, 0, 1000)
        x += [0, 1, 4, 0.25, .infinity, 1e-30, 3e38]
        let xB = Buffer(x), oB = Buffer(zeros: x.count)
        let kernels = Microkernels(EngineArithmetic.defaultKernelSet)
        for f in [UnaryElementwiseLayer.Function.neg, .sqrt, .rsqrt] {
            UnaryElementwiseLayer(kind: "UNARY", function: f, input: xB.pointer, output: oB.pointer, count: x.count,
                                  kernels: kernels).run(context)
            for (i, v) in x.enumerated() {
                let got = oB.values[i]
                switch f {
                case .neg: XCTAssertEqual(got.bitPattern, (-v).bitPattern)
                case .sqrt where v == .infinity: continue  // XNNPACK: inf * 0 from its estimate (NaN)
                case .sqrt: XCTAssertLessThanOrEqual(ModelParityTests.ulps(got, v.squareRoot()), 1, "sqrt(\(v))")
                case .rsqrt where v == .infinity: XCTAssertEqual(got, 0)
                case .rsqrt where v == 0:
                    // The estimate of 0 is +inf, and the Newton-Raphson step's 0 * inf makes XNNPACK's result NaN;
                    // the formula (no x86 variant) gives +inf.
                    XCTAssertTrue(kernels.squareRoots == nil ? got == .infinity : got.isNaN, "rsqrt(0) = \(got)")
                default: XCTAssertLessThanOrEqual(ModelParityTests.ulps(got, 1 / v.squareRoot()), 1, "rsqrt(\(v))")
                }
            }
        }
        #if arch(x86_64)
        // On x86 the kernel sets share the CPU's estimate: the same bits whatever the set.
        let portable = Buffer(zeros: x.count), fma = Buffer(zeros: x.count)
        UnaryElementwiseLayer(kind: "RSQRT", function: .rsqrt, input: xB.pointer, output: portable.pointer,
                              count: x.count, kernels: Microkernels(.portable)).run(context)
        UnaryElementwiseLayer(kind: "RSQRT", function: .rsqrt, input: xB.pointer, output: fma.pointer,
                              count: x.count, kernels: kernels).run(context)
        XCTAssertEqual(portable.values.map(\.bitPattern), fma.values.map(\.bitPattern))
        #endif
    }

    func testReduceSoftmaxGatherSliceUnpack() {
        let x = random(2 * 3 * 4)
        let xB = Buffer(x), oB = Buffer(zeros: 8)
        ReduceLayer(kind: "MEAN", function: .mean, input: xB.pointer, inShape: [2, 3, 4], axes: [1],
                    output: oB.pointer).run(context)
        for i in 0..<2 { for k in 0..<4 {
            let column: [Float] = (0..<3).map { j in x[(i * 3 + j) * 4 + k] }
            let mean: Float = column.reduce(0, +) / 3
            XCTAssertEqual(oB.values[i * 4 + k], mean, accuracy: 1e-6)
        } }
        ReduceLayer(kind: "REDUCE_MAX", function: .max, input: xB.pointer, inShape: [2, 3, 4], axes: [0, 2],
                    output: oB.pointer).run(context)
        for j in 0..<3 {
            XCTAssertEqual(oB.values[j], (0..<2).flatMap { i in (0..<4).map { x[(i * 3 + j) * 4 + $0] } }.max()!)
        }

        // Global pooling over H and W of NHWC (its own vectorized path), 11 channels (not a multiple
        // of 8): the same bits as a sum in pixel order (the mean scaled by the reciprocal).
        let pool = random(2 * 3 * 5 * 11)
        let poolB = Buffer(pool), pB = Buffer(zeros: 22)
        for function in [ReduceLayer.Function.mean, .max, .min] {
            ReduceLayer(kind: "REDUCE", function: function, input: poolB.pointer, inShape: [2, 3, 5, 11], axes: [1, 2],
                        output: pB.pointer).run(context)
            for n in 0..<2 { for c in 0..<11 {
                var terms: [Float] = []
                for k in 0..<15 { terms.append(pool[(n * 15 + k) * 11 + c]) }
                let expected: Float
                switch function {
                case .mean: expected = terms.reduce(0, +) * (1 / Float(15))  // times the reciprocal, as XNNPACK
                case .sum: expected = terms.reduce(0, +)
                case .max: expected = terms.max()!
                case .min: expected = terms.min()!
                }
                XCTAssertEqual(pB.values[n * 11 + c], expected, "\(function) n \(n) c \(c)")
            } }
        }

        // The last axis (one contiguous run per output): MEAN and SUM in XNNPACK's f32-rsum order, MAX and MIN
        // (order-free) as in order.
        let runs = random(3 * 21), runsB = Buffer(runs), rB = Buffer(zeros: 3)
        for function in [ReduceLayer.Function.mean, .sum, .max, .min] {
            ReduceLayer(kind: "REDUCE", function: function, input: runsB.pointer, inShape: [3, 21], axes: [1],
                        output: rB.pointer).run(context)
            for n in 0..<3 {
                let terms = Array(runs[(n * 21)..<(n * 21 + 21)])
                let expected: Float
                switch function {
                case .mean: expected = Self.xnnpackRowSum(terms) * (1 / Float(21))
                case .sum: expected = Self.xnnpackRowSum(terms)
                case .max: expected = terms.max()!
                case .min: expected = terms.min()!
                }
                XCTAssertEqual(rB.values[n].bitPattern, expected.bitPattern, "\(function) over the last axis, row \(n)")
            }
        }

        let sB = Buffer(zeros: 24)
        SoftmaxLayer(input: xB.pointer, output: sB.pointer, rows: 6, depth: 4, beta: 1).run(context)
        for r in 0..<6 {
            let row = Array(x[(r * 4)..<(r * 4 + 4)]), m = row.max()!
            let e = row.map { expf($0 - m) }, s = e.reduce(0, +)
            for k in 0..<4 { XCTAssertEqual(sB.values[r * 4 + k], e[k] / s, accuracy: 1e-6) }
        }

        let gB = Buffer(zeros: 2 * 2 * 4)
        GatherLayer(input: xB.pointer, output: gB.pointer, outer: 2, axisSize: 3, inner: 4,
                    indices: [2, 0]).run(context)
        XCTAssertEqual(gB.values, Array(x[8..<12]) + Array(x[0..<4]) + Array(x[20..<24]) + Array(x[12..<16]))

        // x[:, 1:3, ::2] and shrink of axis 0 at index 1: x[1, :, 3]
        let r = StridedSliceLayer.resolve(shape: [2, 3, 4], begin: [0, 1, 0], end: [2, 3, 4], strides: [1, 1, 2],
                                          beginMask: 0, endMask: 0, shrinkMask: 0, offset: false)!
        XCTAssertEqual(r.outShape, [2, 2, 2])
        let slB = Buffer(zeros: 8)
        StridedSliceLayer(input: xB.pointer, inShape: [2, 3, 4], output: slB.pointer, starts: r.starts, stops: r.stops,
                          strides: r.strides).run(context)
        XCTAssertEqual(slB.values, [x[4], x[6], x[8], x[10], x[16], x[18], x[20], x[22]])
        let r2 = StridedSliceLayer.resolve(shape: [2, 3, 4], begin: [1, 0, 3], end: [2, 3, 4], strides: [1, 1, 1],
                                           beginMask: 0, endMask: 0, shrinkMask: 5, offset: false)!
        XCTAssertEqual(r2.outShape, [3])
        let sl2 = Buffer(zeros: 3)
        StridedSliceLayer(input: xB.pointer, inShape: [2, 3, 4], output: sl2.pointer, starts: r2.starts,
                          stops: r2.stops, strides: r2.strides).run(context)
        XCTAssertEqual(sl2.values, [x[15], x[19], x[23]])

        let u0 = Buffer(zeros: 12), u1 = Buffer(zeros: 12)
        UnpackLayer(input: xB.pointer, outputs: [u0.pointer, u1.pointer], outer: 1, inner: 12).run(context)
        XCTAssertEqual(u0.values + u1.values, x)
        // The last axis: [8, 3] into three rows of 8.
        let v = (0..<3).map { _ in Buffer(zeros: 8) }
        UnpackLayer(input: xB.pointer, outputs: v.map(\.pointer), outer: 8, inner: 1).run(context)
        for k in 0..<3 { XCTAssertEqual(v[k].values, (0..<8).map { x[$0 * 3 + k] }, "unpacked \(k) of the last axis") }
    }

    func testFloat16Conversion() {
        XCTAssertEqual(floatFromHalfBits(0x3C00), 1)
        XCTAssertEqual(floatFromHalfBits(0xC000), -2)
        XCTAssertEqual(floatFromHalfBits(0x7BFF), 65504)
        XCTAssertEqual(floatFromHalfBits(0x0001), Float(bitPattern: 0x3380_0000))  // smallest subnormal, 2^-24
        XCTAssertEqual(floatFromHalfBits(0x03FF), 1023 * Float(bitPattern: 0x3380_0000))
        XCTAssertTrue(floatFromHalfBits(0x7C00).isInfinite)
        XCTAssertTrue(floatFromHalfBits(0x7E00).isNaN)
        XCTAssertEqual(floatFromHalfBits(0x8000).sign, .minus)
    }

    func testMemoryPlannerNeverOverlapsLiveBuffers() {
        var requests: [MemoryPlanner.Request] = []
        for i in 0..<60 {
            requests.append(.init(id: i, bytes: 64 * (1 + (i * 37) % 23), firstStep: i % 17,
                                  lastStep: i % 17 + (i * 7) % 9))
        }
        let plan = MemoryPlanner.plan(requests)
        for a in requests {
            for b in requests where a.id < b.id && a.firstStep <= b.lastStep && b.firstStep <= a.lastStep {
            let oa = plan.offsets[a.id]!, ob = plan.offsets[b.id]!
            XCTAssertTrue(oa + a.bytes <= ob || ob + b.bytes <= oa, "\(a) and \(b) overlap")
        } }
        XCTAssertLessThan(plan.size, requests.reduce(0) { $0 + $1.bytes })
    }
}

extension KernelTests {
    /// A residual narrower than the output (a zero channel PAD folded in): only its channels are added.
    func testEpilogueWithNarrowResidual() {
        let rows = 5, channels = 11, rc = 7
        let data = random(rows * channels), residual = random(rows * rc)
        let d = Buffer(data), r = Buffer(residual)
        var e = Epilogue(residual: r.pointer, activation: .relu)
        e.residualChannels = rc
        e.apply(d.pointer, rows: 2, channels: channels, stride: channels, firstRow: 0)
        e.apply(d.pointer + 2 * channels, rows: 3, channels: channels, stride: channels, firstRow: 2)
        for i in 0..<rows { for c in 0..<channels {
            let expected = max(0, data[i * channels + c] + (c < rc ? residual[i * rc + c] : 0))
            XCTAssertEqual(d.values[i * channels + c], expected, "\(i), \(c)")
        } }
    }
}
