import COpenBLAS
import TasksVisionFormat

/// FULLY_CONNECTED: rows of the input times the transposed [units, inputs] weights, summed from
/// the bias in XNNPACK's order (`BiasFirstGEMM`: input rows copied behind a 1 when there is a
/// bias), then the activation epilogue. A single row with up to a million weights runs on
/// OpenBLAS's small-matrix kernels (the gesture embedder's nine 128-unit layers: 17% faster
/// than `sgemv`, whose call costs more than the 64 KB it reads).
final class FullyConnectedLayer: Layer {
    let kind = "FULLY_CONNECTED"
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let rows: Int, inputs: Int, units: Int
    let gemm: BiasFirstGEMM
    /// The epilogue after the GEMM (the bias is summed in it).
    let afterGEMM: Epilogue

    init(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         rows: Int, inputs: Int, units: Int, epilogue: Epilogue) {
        self.input = input
        self.output = output
        self.rows = rows
        self.inputs = inputs
        self.units = units
        gemm = BiasFirstGEMM(weights: weights, bias: epilogue.bias, k: inputs, columns: units, rowsPerCall: rows, columnBlock: units)
        afterGEMM = epilogue.withoutBias
    }

    deinit { gemm.deallocate() }

    var flops: Double { 2.0 * Double(rows * inputs * units) }
    var scratchFloatsPerWorker: Int { gemm.scratchFloats(ledRows: rows) }

    func run(_ context: RunContext) {
        gemm.multiply(rowsOf: input, stride: inputs, rows: rows, into: output, ldc: units, scratch: context.scratch(forWorker: 0))
        afterGEMM.apply(output, rows: rows, channels: units, stride: units)
    }
}
