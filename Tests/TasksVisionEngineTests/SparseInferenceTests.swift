import Foundation
@testable import TasksVisionEngine
import TasksVisionFormat
import XCTest

/// The nodes XNNPACK's arm64 build runs in its sparse inference's NCHW layout (`Graph.markSparseInference`), and
/// the sums the arm64 set takes for them (`SparseInferenceOrders`).
final class SparseInferenceTests: KernelTestCase {
    func graph(_ name: String) throws -> Graph {
        let bytes = try ModelAsset.readFile(try TestPaths.model(name))
        return try ExecutionPlan.loadGraph(try TFLiteModel(bytes: bytes, name: name))
    }

    /// The convolutions, depthwise convolutions and resizes a DEPTH_TO_SPACE depends on: in the sparse detectors
    /// every node between the input and those is of a kind XNNPACK runs NCHW, their PADs fold into the convolution
    /// after them, and none of their tensors is read after a DEPTH_TO_SPACE (the heads read its outputs).
    func trunk(_ g: Graph) -> [Int] {
        var producer: [Int: Graph.Node] = [:]
        for node in g.nodes { for t in node.outputs { producer[t] = node } }
        var seen = Set<Int>(), stack = g.nodes.filter { $0.op == .depthToSpace }.flatMap(\.reads)
        while let t = stack.popLast() {
            guard let node = producer[t], seen.insert(node.index).inserted else { continue }
            stack += node.reads
        }
        return g.nodes.filter { seen.contains($0.index) && [.conv2D, .depthwiseConv2D, .resizeBilinear].contains($0.op) }
            .map(\.index)
    }

    func testSparseDetectorsRunTheirTrunkNCHW() throws {
        for name in ["pose_detection.tflite", "face_detection_full_range_sparse.tflite"] {
            let g = try graph(name)
            let marked = g.nodes.filter(\.sparseInference).map(\.index)
            XCTAssertEqual(marked, trunk(g), name)
            XCTAssertGreaterThan(marked.count, 40, name)
            // The first convolution (3 channels, 3x3, stride 2 after a PAD of 1) starts it.
            let first = g.nodes.first { $0.op == .conv2D }
            XCTAssertEqual(first?.sparseInference, true, name)
            XCTAssertEqual(first.map { g.tensors[$0.inputs[0]].shape.last }, 3, name)
            // The heads' convolutions read the DEPTH_TO_SPACE outputs, NHWC.
            XCTAssertTrue(g.nodes.filter { $0.op == .conv2D && g.tensors[$0.outputs[0]].shape[3] == 2 }
                .allSatisfy { !$0.sparseInference }, name)
        }
    }

    func testDenseModelsStayNHWC() throws {
        for name in ["face_detection_full_range.tflite", "palm_detection_full.tflite", "pose_landmark_lite.tflite",
                     "hand_landmark_full.tflite"] {
            let g = try graph(name)
            XCTAssertTrue(g.sparseWeights.isEmpty, name)
            XCTAssertEqual(g.nodes.filter(\.sparseInference).count, 0, name)
        }
    }

    /// XNNPACK's arm64 CHW depthwise kernels as their sources list the taps (src/f32-dwconv2d-chw/gen, the
    /// aarch64-neonfma variants its config picks): accumulator (p0 from the bias, p1 from zero) and tap kYX.
    static let chwKernels: [(k: Int, stride: Int, taps: String)] = [
        (3, 1, "p0 k01 p0 k11 p0 k21 p0 k00 p0 k10 p0 k20 p0 k02 p0 k12 p0 k22"),
        (3, 2, "p1 k01 p0 k11 p0 k21 p1 k00 p0 k10 p1 k20 p0 k02 p1 k12 p0 k22"),
        (5, 1, "p0 k02 p0 k12 p0 k22 p0 k32 p0 k42 p0 k01 p0 k11 p0 k21 p0 k31 p0 k41 p0 k00 p0 k10 p0 k20 p0 k30 "
            + "p0 k40 p0 k03 p0 k13 p0 k23 p0 k33 p0 k43 p0 k04 p0 k14 p0 k24 p0 k34 p0 k44"),
        (5, 2, "p1 k02 p0 k12 p0 k22 p1 k32 p0 k42 p1 k03 p0 k13 p1 k23 p0 k33 p1 k43 p0 k00 p1 k10 p0 k20 p1 k30 "
            + "p0 k40 p1 k01 p0 k11 p1 k21 p0 k31 p1 k41 p0 k04 p1 k14 p0 k24 p1 k34 p0 k44"),
    ]

    func testDepthwiseTakesXNNPACKsCHWOrders() {
        let neon = Microkernels(.neon)
        for (k, stride, list) in Self.chwKernels {
            let words = list.split(separator: " ").map(String.init)
            let taps = Swift.stride(from: 0, to: words.count, by: 2).map { i -> (second: Bool, ky: Int, kx: Int) in
                let w = Array(words[i + 1])
                return (words[i] == "p1", Int(String(w[1])) ?? 0, Int(String(w[2])) ?? 0)
            }
            XCTAssertEqual(taps.count, k * k)
            for (h, w, channels, act) in [(9, 11, 13, FusedActivation.none), (10, 7, 3, .relu6), (12, 10, 24, .relu)] {
                let pad = k / 2
                let c = KernelTests.ConvCase(h: h, w: w, cin: channels, cout: channels, k: k, stride: stride,
                                             padTop: pad, padLeft: pad, padBottom: pad, padRight: pad, act: act)
                let input = random(h * w * channels), weights = random(k * k * channels), bias = random(channels)
                let oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1
                let (lo, hi) = Epilogue(activation: act).bounds
                var expected = [Float](repeating: 0, count: oh * ow * channels)
                for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<channels {
                    var p0 = bias[ch], p1: Float = 0
                    for t in taps {
                        let iy = oy * stride - pad + t.ky, ix = ox * stride - pad + t.kx
                        guard iy >= 0 && iy < h && ix >= 0 && ix < w else { continue }
                        let x = input[(iy * w + ix) * channels + ch], wt = weights[(t.ky * k + t.kx) * channels + ch]
                        if t.second { p1 = p1.addingProduct(x, wt) } else { p0 = p0.addingProduct(x, wt) }
                    }
                    expected[(oy * ow + ox) * channels + ch] = min(max(p0 + p1, lo), hi)
                } } }
                let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: expected.count)
                let g = ConvGeometry(batch: 1, inH: h, inW: w, inC: channels, outH: oh, outW: ow, outC: channels, kH: k,
                                     kW: k, strideH: stride, strideW: stride, padTop: pad, padLeft: pad)
                let layer = DepthwiseConv2DLayer(geometry: g, multiplier: 1, input: inB.pointer, output: outB.pointer,
                                                 weights: wB.pointer,
                                                 epilogue: Epilogue(bias: bB.pointer, activation: act), kernels: neon,
                                                 sparseInference: true)
                layer.run(context)
                let what = "\(k)x\(k) stride \(stride), \(h)x\(w)x\(channels)"
                XCTAssertEqual(outB.values.map(\.bitPattern), expected.map(\.bitPattern), what)
                XCTAssertEqual(runThreaded(layer, output: outB.pointer, count: expected.count).map(\.bitPattern),
                               expected.map(\.bitPattern), what + " on three threads")
                if channels > 3 {
                    let nhwc = depthwiseSums(c, input: input, weights: weights, bias: bias, twoChains: k == 5).chain
                        .map { min(max($0, lo), hi) }
                    XCTAssertNotEqual(nhwc, expected, what + ": the NHWC order differs")
                }
            }
        }
    }

    /// The first convolution (3x3, stride 2, 3 channels, padded by 1) as XNNPACK's `conv-hwc2chw-3x3s2p1c3x4`
    /// sums it: kx, then channel, then ky, one chain; the 1x1 convolutions after it as its spmm: one chain, where
    /// the arm64 NHWC GEMM would take lane chains (6 columns).
    func testConvolutionsTakeXNNPACKsCHWOrders() {
        let neon = Microkernels(.neon)
        for (h, w, cin, cout, k, stride, pad) in [(11, 12, 3, 24, 3, 2, 1), (9, 9, 3, 5, 3, 2, 1), (7, 9, 20, 6, 1, 1, 0),
                                                  (6, 6, 13, 1, 1, 1, 0)] {
            let input = random(h * w * cin), weights = random(cout * k * k * cin), bias = random(cout)
            let oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1
            var expected = [Float](repeating: 0, count: oh * ow * cout), nhwc = expected
            for oy in 0..<oh { for ox in 0..<ow { for o in 0..<cout {
                var acc = bias[o], usual = bias[o]
                func at(_ ky: Int, _ kx: Int, _ ch: Int) -> (Float, Float)? {
                    let iy = oy * stride - pad + ky, ix = ox * stride - pad + kx
                    guard iy >= 0 && iy < h && ix >= 0 && ix < w else { return nil }
                    return (input[(iy * w + ix) * cin + ch], weights[((o * k + ky) * k + kx) * cin + ch])
                }
                for kx in 0..<k { for ch in 0..<cin { for ky in 0..<k {
                    if let (x, wt) = at(ky, kx, ch) { acc = acc.addingProduct(x, wt) }
                } } }
                for ky in 0..<k { for kx in 0..<k { for ch in 0..<cin {
                    if let (x, wt) = at(ky, kx, ch) { usual = usual.addingProduct(x, wt) }
                } } }
                expected[(oy * ow + ox) * cout + o] = acc
                nhwc[(oy * ow + ox) * cout + o] = usual
            } } }
            let inB = Buffer(input), wB = Buffer(weights), bB = Buffer(bias), outB = Buffer(zeros: expected.count)
            let g = ConvGeometry(batch: 1, inH: h, inW: w, inC: cin, outH: oh, outW: ow, outC: cout, kH: k, kW: k,
                                 strideH: stride, strideW: stride, padTop: pad, padLeft: pad)
            let layer = Conv2DLayer(geometry: g, input: inB.pointer, output: outB.pointer, weights: wB.pointer,
                                    epilogue: Epilogue(bias: bB.pointer), kernels: neon, sparseInference: true)
            layer.run(context)
            let what = "\(k)x\(k) stride \(stride), \(h)x\(w)x\(cin) -> \(cout)"
            XCTAssertEqual(outB.values.map(\.bitPattern), expected.map(\.bitPattern), what)
            XCTAssertEqual(runThreaded(layer, output: outB.pointer, count: expected.count).map(\.bitPattern),
                           expected.map(\.bitPattern), what + " on three threads")
            if k == 3 && cout > 20 { XCTAssertNotEqual(nhwc, expected, what + ": the NHWC order differs") }
        }
    }

    /// Bilinear resize as XNNPACK's `ibilinear-chw` computes it: between the rows first, then across, each a fused
    /// multiply-add; a source column on the last one reads the last two with a weight of 1.
    func testResizeTakesXNNPACKsCHWOrder() {
        let neon = Microkernels(.neon)
        for (inH, inW, channels, outH, outW, alignCorners, halfPixel) in [(7, 9, 5, 14, 18, false, true),
                                                                         (4, 6, 12, 8, 12, false, true),
                                                                         (5, 5, 8, 9, 9, true, false)] {
            let input = random(inH * inW * channels)
            let ys = ResizeBilinearLayer.axis(out: outH, in: inH, alignCorners: alignCorners, halfPixel: halfPixel)
            let xs = ResizeBilinearLayer.axis(out: outW, in: inW, alignCorners: alignCorners, halfPixel: halfPixel)
            var expected = [Float](repeating: 0, count: outH * outW * channels)
            for (oy, y) in ys.enumerated() { for (ox, x) in xs.enumerated() { for ch in 0..<channels {
                let left = x.lo == inW - 1 ? inW - 2 : x.lo, ax: Float = x.lo == inW - 1 ? 1 : x.frac
                func v(_ r: Int, _ col: Int) -> Float { input[(r * inW + col) * channels + ch] }
                let l = v(y.lo, left).addingProduct(v(y.hi, left) - v(y.lo, left), y.frac)
                let r = v(y.lo, left + 1).addingProduct(v(y.hi, left + 1) - v(y.lo, left + 1), y.frac)
                expected[(oy * outW + ox) * channels + ch] = l.addingProduct(r - l, ax)
            } } }
            let inB = Buffer(input), outB = Buffer(zeros: expected.count)
            let layer = ResizeBilinearLayer(input: inB.pointer, output: outB.pointer, batch: 1, inH: inH, inW: inW,
                                            channels: channels, outH: outH, outW: outW, alignCorners: alignCorners,
                                            halfPixelCenters: halfPixel, kernels: neon, sparseInference: true)
            layer.run(context)
            XCTAssertEqual(outB.values.map(\.bitPattern), expected.map(\.bitPattern), "\(inH)x\(inW)x\(channels)")
            let usual = ResizeBilinearLayer(input: inB.pointer, output: outB.pointer, batch: 1, inH: inH, inW: inW,
                                            channels: channels, outH: outH, outW: outW, alignCorners: alignCorners,
                                            halfPixelCenters: halfPixel, kernels: neon)
            usual.run(context)
            XCTAssertNotEqual(outB.values.map(\.bitPattern), expected.map(\.bitPattern), "the NHWC order differs")
        }
    }
}
