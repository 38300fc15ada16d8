import COpenBLAS
import TasksVisionFormat

/// FULLY_CONNECTED: rows of the input times the transposed [units, inputs] weights,
/// `sgemv` for a single row and `sgemm` otherwise, with the bias/activation epilogue.
final class FullyConnectedLayer: Layer {
    let kind = "FULLY_CONNECTED"
    let input: UnsafePointer<Float>
    let weights: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let rows: Int, inputs: Int, units: Int
    let epilogue: Epilogue

    init(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         rows: Int, inputs: Int, units: Int, epilogue: Epilogue) {
        self.input = input
        self.weights = weights
        self.output = output
        self.rows = rows
        self.inputs = inputs
        self.units = units
        self.epilogue = epilogue
    }

    var flops: Double { 2.0 * Double(rows * inputs * units) }

    func run(_ context: RunContext) {
        if rows == 1 {
            cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(units), Int32(inputs), 1, weights, Int32(inputs),
                        input, 1, 0, output, 1)
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(units), Int32(inputs),
                        1, input, Int32(inputs), weights, Int32(inputs), 0, output, Int32(units))
        }
        epilogue.apply(output, rows: rows, channels: units, stride: units)
    }
}
