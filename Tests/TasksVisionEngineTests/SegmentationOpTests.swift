@testable import TasksVisionEngine
import TasksVisionFormat
import XCTest

/// The selfie segmentation models' ops against naive per-element computations in XNNPACK's order: MediaPipe's
/// `Convolution2DTransposeBias` (each output a fused multiply-add chain from the bias over its tap's channels),
/// AVERAGE_POOL_2D (XNNPACK's 9p passes) and HARD_SWISH (XNNPACK's vhswish), on every kernel set this CPU runs.
final class SegmentationOpTests: KernelTestCase {
    /// A transposed convolution as MediaPipe defines it, computed output by output: the input pixel and filter tap
    /// each output pixel takes (kernel = stride), then `bias + x[0] w[0] + x[1] w[1] + ...`, each step rounded once.
    func naiveTransposeConvolution(input: [Float], h: Int, w: Int, cin: Int, filter: [Float], bias: [Float],
                                   cout: Int, k: Int) -> [Float] {
        let oh = h * k, ow = w * k
        var out = [Float](repeating: .nan, count: oh * ow * cout)
        for oy in 0..<oh { for ox in 0..<ow { for o in 0..<cout {
            let iy = oy / k, ix = ox / k, ky = oy % k, kx = ox % k
            var acc = bias[o]
            for c in 0..<cin {
                acc = acc.addingProduct(input[(iy * w + ix) * cin + c], filter[((o * k + ky) * k + kx) * cin + c])
            }
            out[(oy * ow + ox) * cout + o] = acc
        } } }
        return out
    }

    func testConvolution2DTransposeBiasAgainstNaive() {
        // The selfie models' head (128x128x16 -> 256x256x1, 2x2 stride 2), several output channels, odd sizes,
        // a 3x3 kernel of stride 3, one pixel.
        let cases = [(128, 128, 16, 1, 2), (5, 7, 3, 4, 2), (4, 3, 19, 2, 3), (1, 1, 8, 3, 2), (9, 6, 33, 5, 2)]
        for set in KernelSet.supported() {
            for (h, w, cin, cout, k) in cases {
                let input = random(h * w * cin, -2, 2), filter = random(cout * k * k * cin), bias = random(cout)
                let reference = naiveTransposeConvolution(input: input, h: h, w: w, cin: cin, filter: filter,
                                                          bias: bias, cout: cout, k: k)
                let inB = Buffer(input), filterB = Buffer(filter), biasB = Buffer(bias)
                let outB = Buffer(zeros: reference.count)
                let layer = Convolution2DTransposeBiasLayer(batch: 1, inH: h, inW: w, inC: cin, kH: k, kW: k,
                                                            outC: cout, input: inB.pointer, filter: filterB.pointer,
                                                            bias: biasB.pointer, output: outB.pointer,
                                                            kernels: Microkernels(set))
                for run in [context, threaded] {
                    outB.pointer.update(repeating: .nan, count: outB.count)
                    layer.run(run)
                    let what = "\(set) \(h)x\(w)x\(cin) -> \(cout) k\(k), \(run.threads) threads"
                    if set.sumsAsXNNPACK {
                        let differ = zip(outB.values, reference).filter { $0.0.bitPattern != $0.1.bitPattern }.count
                        XCTAssertEqual(differ, 0, "\(what): outputs that differ from the naive chain")
                    } else {
                        // OpenBLAS without fused chains (a CPU older than AVX-512): only close.
                        for (a, b) in zip(outB.values, reference) {
                            XCTAssertEqual(a, b, accuracy: 1e-5 * max(1, abs(b)), what)
                        }
                    }
                }
            }
        }
    }

    func testConvolution2DTransposeBiasFromAModel() throws {
        // The op as the interpreter builds it from selfie_segmenter.tflite's custom options (SAME, stride 2x2).
        let interpreter = try Interpreter(path: try TestPaths.model("selfie_segmenter.tflite"))
        let layers = interpreter.layers.filter { $0.kind == "Convolution2DTransposeBias" }
        XCTAssertEqual(layers.count, 1)
        XCTAssertEqual((layers.first as? Convolution2DTransposeBiasLayer)?.description,
                       "128x128x16 k2x2 s2x2 -> 256x256x1")
        XCTAssertEqual(interpreter.layers.filter { $0.kind == "AVERAGE_POOL_2D" }.count, 10)
        XCTAssertEqual(interpreter.layers.filter { $0.kind == "HARD_SWISH" }.count, 11)
    }

    /// XNNPACK's `f32-avgpool-9p` for one window's values in its order (column by column): passes of 9 added to
    /// the sum so far, each a fixed tree, zeros past the end, then times the float 1 / count.
    func naiveAveragePool(_ v: [Float]) -> Float {
        func e(_ j: Int) -> Float { j < v.count ? v[j] : 0 }
        var acc: Float = 0, j = 0
        while true {
            let s018 = (e(j) + e(j + 1)) + e(j + 8)
            let s2345 = (e(j + 2) + e(j + 3)) + (e(j + 4) + e(j + 5))
            acc = acc + (s2345 + (s018 + (e(j + 6) + e(j + 7))))
            if v.count - j <= 9 { break }
            j += 9
        }
        return acc * (1 / Float(v.count))
    }

    func testAveragePoolAsXNNPACK() {
        // Global pools of 1, 9, 16 and 256 values (one pass, a full pass, a pass and a remainder, 29 passes),
        // strided windows, channels past a vector, a ReLU6 clamp.
        // On every set's `f32-avgpool-9p`: channels in blocks of four, two and one vectors and one by one (70, 133),
        // a global pool of many channels split into blocks over the threads (200).
        let cases: [(Int, Int, Int, Int, Int, Int, FusedActivation)] = [
            (1, 1, 5, 1, 1, 1, .none), (3, 3, 16, 3, 3, 3, .none), (4, 4, 9, 4, 4, 4, .relu6),
            (16, 16, 24, 16, 16, 16, .none), (9, 8, 11, 3, 2, 2, .none), (7, 10, 3, 2, 5, 1, .relu),
            (5, 6, 70, 5, 6, 1, .relu6), (4, 3, 133, 2, 2, 1, .none), (6, 5, 200, 6, 5, 1, .none)]
        for set in KernelSet.supported() { for (h, w, c, kh, kw, s, act) in cases {
            let oh = (h - kh) / s + 1, ow = (w - kw) / s + 1
            let input = random(h * w * c, -4, 8)
            var reference = [Float](repeating: 0, count: oh * ow * c)
            for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
                var window: [Float] = []
                for kx in 0..<kw {
                    for ky in 0..<kh { window.append(input[((oy * s + ky) * w + ox * s + kx) * c + ch]) }
                }
                let v = naiveAveragePool(window)
                let lo: Float = act == .none ? -.infinity : 0, hi: Float = act == .relu6 ? 6 : .infinity
                reference[(oy * ow + ox) * c + ch] = min(max(v, lo), hi)
            } } }
            let inB = Buffer(input), outB = Buffer(zeros: reference.count)
            var epilogue = Epilogue()
            epilogue.activation = act
            let g = ConvGeometry(batch: 1, inH: h, inW: w, inC: c, outH: oh, outW: ow, outC: c, kH: kh, kW: kw,
                                 strideH: s, strideW: s, padTop: 0, padLeft: 0)
            let layer = AveragePool2DLayer(geometry: g, input: inB.pointer, output: outB.pointer, epilogue: epilogue,
                                           kernels: Microkernels(set))
            for run in [context, threaded] {
                layer.run(run)
                let differ = zip(outB.values, reference).filter { $0.0.bitPattern != $0.1.bitPattern }.count
                XCTAssertEqual(differ, 0, "\(set) avgpool \(h)x\(w)x\(c) k\(kh)x\(kw) s\(s): outputs that differ")
                // And an average: within float rounding of the exact mean.
                for oy in 0..<oh { for ox in 0..<ow {
                    var sum = 0.0
                    for ky in 0..<kh {
                        for kx in 0..<kw { sum += Double(input[((oy * s + ky) * w + ox * s + kx) * c]) }
                    }
                    if act == .none {
                        XCTAssertEqual(Double(outB.values[(oy * ow + ox) * c]), sum / Double(kh * kw), accuracy: 1e-5)
                    }
                } }
            }
        } }
    }

    func testHardSwishAsXNNPACK() {
        let specials: [Float] = [0, -0.0, 3, -3, 2.999_999_8, -3.000_000_2, 1e-30, -1e-30, 1e30, -1e30, .infinity,
                                 -.infinity, .nan, 0.5, -0.5, 6, -6]
        let input = specials + random(1000, -8, 8) + random(37, -1e-3, 1e-3)
        for set in KernelSet.supported() {
            let out = [Float](unsafeUninitializedCapacity: input.count) { buffer, count in
                input.withUnsafeBufferPointer { x in
                    guard let xb = x.baseAddress, let ob = buffer.baseAddress else { return }
                    Microkernels(set).hardSwish(xb, ob, input.count)
                }
                count = input.count
            }
            for (x, y) in zip(input, out) {
                // XNNPACK: max(fma(x, 1/6, 0.5), 0), then min(., 1), times x.
                let a = Float(0.5).addingProduct(x, 0x1.555556p-3)
                let expected = min(a > 0 ? a : 0, 1) * x
                XCTAssertTrue(y.bitPattern == expected.bitPattern || (y.isNaN && expected.isNaN),
                              "\(set) hard swish of \(x): \(y), expected \(expected)")
            }
        }
    }
}
