/// MediaPipe's custom `Convolution2DTransposeBias` (mediapipe/util/tflite/operations/transpose_conv_bias.cc): a
/// transposed convolution with a bias, filter [Cout, kH, kW, Cin], options the C struct
/// `TfLiteTransposeConvParams` (padding, stride width, stride height as little-endian int32).
///
/// TFLite's XNNPACK delegate defines it as an XNNPACK deconvolution, which for strides above 1 runs one IGEMM per
/// subkernel (`subconv2d`) on its `nr2` tiles (its default tile is wider than the selfie models' one output
/// channel), each output a fused multiply-add chain from the bias over its taps' channels in order. With a kernel
/// equal to the stride and no padding (the selfie models' 2x2 stride 2 head) every output pixel takes exactly one
/// tap, so the layer is a 1x1 convolution of `kH * kW * Cout` columns, column `(ky * kW + kx) * Cout + o` computing
/// output pixel `(iy * strideH + ky, ix * strideW + kx)`, channel `o`: the same chain, which the engine's
/// convolution sums in XNNPACK's order on every kernel set. Its products are then spread to their pixels.
final class Convolution2DTransposeBiasLayer: Layer, CustomStringConvertible {
    let kind = "Convolution2DTransposeBias"
    var description: String {
        "\(inH)x\(inW)x\(inC) k\(kH)x\(kW) s\(kH)x\(kW) -> \(inH * kH)x\(inW * kW)x\(outC)"
    }
    let batch: Int, inH: Int, inW: Int, inC: Int, kH: Int, kW: Int, outC: Int
    let output: UnsafeMutablePointer<Float>
    /// The 1x1 convolution's weights [kH * kW * Cout, Cin], bias and products [pixels, kH * kW * Cout].
    private let weights: UnsafeMutablePointer<Float>
    private let bias: UnsafeMutablePointer<Float>
    private let products: UnsafeMutablePointer<Float>
    private let convolution: Conv2DLayer

    /// `filter` [outC, kH, kW, inC], `bias` [outC]; the strides equal the kernel and nothing is padded (the
    /// builder checks).
    init(batch: Int, inH: Int, inW: Int, inC: Int, kH: Int, kW: Int, outC: Int, input: UnsafeMutablePointer<Float>,
         filter: UnsafePointer<Float>, bias biasValues: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         kernels: Microkernels) {
        self.batch = batch; self.inH = inH; self.inW = inW; self.inC = inC
        self.kH = kH; self.kW = kW; self.outC = outC
        self.output = output
        let columns = kH * kW * outC
        let weights = UnsafeMutablePointer<Float>.allocate(capacity: columns * inC)
        let bias = UnsafeMutablePointer<Float>.allocate(capacity: columns)
        let products = UnsafeMutablePointer<Float>.allocate(capacity: max(batch * inH * inW * columns, 1))
        self.weights = weights; self.bias = bias; self.products = products
        for ky in 0..<kH {
            for kx in 0..<kW {
                for o in 0..<outC {
                    let column = (ky * kW + kx) * outC + o
                    (weights + column * inC).update(from: filter + ((o * kH + ky) * kW + kx) * inC, count: inC)
                    bias[column] = biasValues[o]
                }
            }
        }
        var epilogue = Epilogue()
        epilogue.bias = UnsafePointer(bias)
        let g = ConvGeometry(batch: batch, inH: inH, inW: inW, inC: inC, outH: inH, outW: inW, outC: columns,
                             kH: 1, kW: 1, strideH: 1, strideW: 1, padTop: 0, padLeft: 0)
        convolution = Conv2DLayer(geometry: g, input: input, output: products, weights: UnsafePointer(weights),
                                  epilogue: epilogue, kernels: kernels)
    }

    deinit {
        weights.deallocate()
        bias.deallocate()
        products.deallocate()
    }

    var flops: Double { convolution.flops }
    var parallelWork: Double { convolution.parallelWork }
    var scratchFloatsPerWorker: Int { convolution.scratchFloatsPerWorker }
    var packedWeightBytes: Int { convolution.packedWeightBytes }

    func run(_ context: RunContext) {
        convolution.run(context)
        let outW = inW * kW, columns = kH * kW * outC, run = kW * outC
        // Each input pixel's products: kH rows of kW pixels of outC channels in the output. Runs are a few floats
        // (2 for the selfie models' head), so copied in a loop rather than by a call each; input rows split over
        // the threads (copies: any split gives the same values).
        parallelFor(batch * inH, context: context) { row, _ in
            let n = row / inH, iy = row % inH
            for ky in 0..<kH {
                let out = output + ((n * inH + iy) * kH + ky) * outW * outC
                let from = products + row * inW * columns + ky * run
                if run == 2 {
                    for ix in 0..<inW {
                        let s = from + ix * columns, o = out + ix * 2
                        o[0] = s[0]; o[1] = s[1]
                    }
                } else {
                    for ix in 0..<inW {
                        let s = from + ix * columns, o = out + ix * run
                        for j in 0..<run { o[j] = s[j] }
                    }
                }
            }
        }
    }
}
