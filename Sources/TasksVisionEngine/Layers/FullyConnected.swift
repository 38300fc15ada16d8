import TasksVisionFormat
import TasksVisionKernels

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
    /// The product on OpenBLAS (the portable set), or on the FMA set's microkernel.
    let gemm: BiasFirstGEMM?
    let packed: PackedGEMM?
    /// The epilogue after the GEMM (the bias is summed in it).
    let afterGEMM: Epilogue

    init(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         rows: Int, inputs: Int, units: Int, epilogue: Epilogue, kernels: Microkernels = .portable) {
        self.input = input
        self.output = output
        self.rows = rows
        self.inputs = inputs
        self.units = units
        if !kernels.gemms.isEmpty {
            packed = PackedGEMM(weights: weights, k: inputs, columns: units, epilogue: epilogue, kernels: kernels,
                                instead: kernels.plainGEMM(columns: units, rows: rows))
            gemm = nil
            afterGEMM = Epilogue()
        } else {
            gemm = BiasFirstGEMM(weights: weights, bias: epilogue.bias, k: inputs, columns: units, rowsPerCall: rows,
                                 columnBlock: units)
            packed = nil
            afterGEMM = epilogue.withoutBias
        }
    }

    deinit { gemm?.deallocate() }

    var flops: Double { 2.0 * Double(rows * inputs * units) }
    var packedWeightBytes: Int { packed?.byteCount ?? (gemm.map { $0.depth * $0.paddedColumns } ?? 0) * 4 }
    var scratchFloatsPerWorker: Int { gemm?.scratchFloats(ledRows: rows) ?? 0 }

    func run(_ context: RunContext) {
        if let packed {
            packed.multiply(input, lda: inputs, rows: rows, into: output, ldc: units, firstRow: 0)
            return
        }
        guard let gemm else { return }
        gemm.multiply(rowsOf: input, stride: inputs, rows: rows, into: output, ldc: units,
                      scratch: context.scratch(forWorker: 0))
        afterGEMM.apply(output, rows: rows, channels: units, stride: units)
    }
}
