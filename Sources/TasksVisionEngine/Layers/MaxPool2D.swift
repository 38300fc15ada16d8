import TasksVisionKernels
import TasksVisionKernelsPortable

/// MAX_POOL_2D over NHWC, one output row per item, on the kernel set's row kernel (vectors over
/// channels); taps outside the image are ignored (TFLite pads max pooling with nothing, not zeros).
final class MaxPool2DLayer: Layer {
    let kind = "MAX_POOL_2D"
    let g: ConvGeometry
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let epilogue: Epilogue
    let rowKernel: (MaxPoolRowArguments) -> Void

    init(geometry: ConvGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, epilogue: Epilogue,
         kernels: Microkernels) {
        g = geometry
        self.input = input
        self.output = output
        self.epilogue = epilogue
        rowKernel = kernels.maxPoolRow(channels: geometry.inC) ?? TasksVisionKernelsPortable.f32MaxPoolRow
    }

    var flops: Double { Double(g.batch * g.outH * g.outW * g.outC * g.kH * g.kW) }
    /// Memory-bound: every compared input is a load.
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        let c = g.inC
        parallelFor(g.batch * g.outH, context: context) { item, _ in
            let n = item / g.outH, oy = item % g.outH
            let out = output + (n * g.outH + oy) * g.outW * c
            let window = RowWindow(input: input + n * g.inH * g.inW * c, inH: g.inH, inW: g.inW, channels: c,
                                   kH: g.kH, kW: g.kW, strideW: g.strideW, padLeft: g.padLeft,
                                   iy0: oy * g.strideH - g.padTop)
            rowKernel(MaxPoolRowArguments(window: window, output: out, outW: g.outW))
            epilogue.apply(out, rows: g.outW, channels: c, stride: c)
        }
    }
}
