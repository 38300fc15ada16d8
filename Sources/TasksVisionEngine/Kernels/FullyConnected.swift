import COpenBLAS
import TasksVisionFormat

/// FULLY_CONNECTED: rows of the input times the transposed [units, inputs] weights, with the
/// bias/activation epilogue. A single row with up to a million weights goes through OpenBLAS's
/// small-matrix `sgemm` kernels on a [inputs, units] copy of the weights (the gesture embedder's
/// nine 128-unit layers: 17% faster than `sgemv`, whose call costs more than the 64 KB it
/// reads); other shapes use `sgemv` (one row) or `sgemm`.
final class FullyConnectedLayer: Layer {
    let kind = "FULLY_CONNECTED"
    let input: UnsafePointer<Float>
    let weights: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let rows: Int, inputs: Int, units: Int
    let epilogue: Epilogue
    /// [inputs, units]: the weights transposed, for the small-matrix path (one row).
    let transposedWeights: UnsafeMutablePointer<Float>?
    /// Whether the bias is preset into the output (small-matrix path, as in `Conv2DLayer`:
    /// deep enough products start from the bias, XNNPACK's order), and what is left after.
    let presetsBias: Bool
    let afterGEMM: Epilogue

    init(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         rows: Int, inputs: Int, units: Int, epilogue: Epilogue) {
        self.input = input
        self.weights = weights
        self.output = output
        self.rows = rows
        self.inputs = inputs
        self.units = units
        self.epilogue = epilogue
        transposedWeights = rows == 1 && inputs * units <= Conv2DLayer.smallMatrixLimit
            ? transposedCopy(weights, rows: units, columns: inputs) : nil
        presetsBias = transposedWeights != nil && epilogue.bias != nil && inputs >= Conv2DLayer.presetBiasMinimumDepth
        afterGEMM = presetsBias ? epilogue.withoutBias : epilogue
    }

    deinit { transposedWeights?.deallocate() }

    var flops: Double { 2.0 * Double(rows * inputs * units) }

    func run(_ context: RunContext) {
        if let wT = transposedWeights {
            if presetsBias { epilogue.presetBias(output, rows: 1, channels: units, stride: units) }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, Int32(units), Int32(inputs),
                        1, input, Int32(inputs), wT, Int32(units), presetsBias ? 1 : 0, output, Int32(units))
        } else if rows == 1 {
            cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(units), Int32(inputs), 1, weights, Int32(inputs),
                        input, 1, 0, output, 1)
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(units), Int32(inputs),
                        1, input, Int32(inputs), weights, Int32(inputs), 0, output, Int32(units))
        }
        afterGEMM.apply(output, rows: rows, channels: units, stride: units)
    }
}
