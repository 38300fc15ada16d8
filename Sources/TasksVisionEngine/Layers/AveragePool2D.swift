/// AVERAGE_POOL_2D over NHWC windows without padding, summed as XNNPACK's `f32-avgpool-9p` kernels sum
/// (TFLite's XNNPACK delegate defines every pool larger than 1x1 as an XNNPACK average pooling):
/// the window's elements column by column (its indirection buffer: kx outer, ky inner), in passes of 9,
/// each pass a fixed tree, `((i2 + i3) + (i4 + i5)) + (((i0 + i1) + i8) + (i6 + i7))`, added to the sum of
/// the passes before it (zero at first; the last pass has 1 to 9 elements, zeros in place of the rest), then
/// times the float `1 / (kH * kW)`, then the activation's clamp, on the kernel set's `f32-avgpool-9p` kernel.
/// Additions only, so every kernel set gives the same bits.
final class AveragePool2DLayer: PoolingLayer {
    let kind = "AVERAGE_POOL_2D"
    let g: ConvGeometry
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let epilogue: Epilogue
    /// The window's elements in XNNPACK's order, in floats from its first (`AveragePoolArguments.offsets`).
    let offsets: UnsafeMutablePointer<Int>
    let kernel: (AveragePoolArguments) -> Void

    init(geometry: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         epilogue: Epilogue, kernels: Microkernels = .portable) {
        g = geometry
        self.input = input
        self.output = output
        self.epilogue = epilogue
        kernel = kernels.averagePool
        offsets = .allocate(capacity: max(geometry.kH * geometry.kW, 1))
        var j = 0
        for kx in 0..<geometry.kW {
            for ky in 0..<geometry.kH {
                (offsets + j).initialize(to: (ky * geometry.inW + kx) * geometry.inC)
                j += 1
            }
        }
    }

    deinit { offsets.deallocate() }

    /// Channels per item when the outputs are too few rows to share out (a global pooling's one pixel): whole
    /// vectors of every set, each block summed alone in the same order.
    static let channelBlock = 64

    func run(_ context: RunContext) {
        let c = g.inC, rows = g.batch * g.outH
        let (lo, hi) = epilogue.bounds
        let clampOnly = epilogue.bias == nil && epilogue.residual == nil && epilogue.alpha == nil
            && epilogue.activation != .tanh
        let blocks = clampOnly && rows < itemsPerThread * context.threads
            ? max(1, (c + Self.channelBlock - 1) / Self.channelBlock) : 1
        parallelFor(rows * blocks, context: context) { item, _ in
            let row = item / blocks, block = item % blocks
            let n = row / g.outH, oy = row % g.outH
            let first = blocks == 1 ? 0 : block * Self.channelBlock
            let count = blocks == 1 ? c : min(Self.channelBlock, c - first)
            for ox in 0..<g.outW {
                let out = output + ((n * g.outH + oy) * g.outW + ox) * c + first
                let origin = input + ((n * g.inH + oy * g.strideH) * g.inW + ox * g.strideW) * c + first
                kernel(AveragePoolArguments(origin: origin, offsets: offsets, elements: g.kH * g.kW, channels: count,
                                            output: out, scale: 1 / Float(g.kH * g.kW), lo: clampOnly ? lo : -.infinity,
                                            hi: clampOnly ? hi : .infinity))
                if !clampOnly { epilogue.apply(out, rows: 1, channels: count, stride: count) }
            }
        }
    }
}
