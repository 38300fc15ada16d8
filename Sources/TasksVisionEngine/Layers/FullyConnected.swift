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

    /// The fewest rows in one item of a split over the threads (two 7-row tiles).
    static let minimumItemRows = 14

    var flops: Double { 2.0 * Double(rows * inputs * units) }
    var packedWeightBytes: Int { packed?.byteCount ?? (gemm.map { $0.depth * $0.paddedColumns } ?? 0) * 4 }
    var scratchFloatsPerWorker: Int { gemm?.scratchFloats(ledRows: rows) ?? 0 }

    func run(_ context: RunContext) {
        if let packed {
            guard context.threads > 1, packed.blocks > 1 || rows >= 2 * Self.minimumItemRows else {
                packed.multiply(input, lda: inputs, rows: rows, into: output, ldc: units, firstRow: 0)
                return
            }
            // Over the threads: blocks of columns (each thread reads its share of the weights, which on one row are
            // all the traffic), and rows where there are enough. Any split gives the same values.
            let target = itemsPerThread * context.threads, blocks = packed.blocks
            let columnParts = min(blocks, target)
            let rowParts = max(1, min((target + columnParts - 1) / columnParts, rows / Self.minimumItemRows))
            parallelFor(rowParts * columnParts, context: context) { item, _ in
                let r = item / columnParts, c = item % columnParts
                let r0 = r * rows / rowParts, r1 = (r + 1) * rows / rowParts
                packed.multiply(input + r0 * inputs, lda: inputs, rows: r1 - r0, into: output + r0 * units, ldc: units,
                                firstRow: r0, slice: (c * blocks / columnParts)..<((c + 1) * blocks / columnParts))
            }
            return
        }
        guard let gemm else { return }
        gemm.multiply(rowsOf: input, stride: inputs, rows: rows, into: output, ldc: units,
                      scratch: context.scratch(forWorker: 0))
        afterGEMM.apply(output, rows: rows, channels: units, stride: units)
    }
}
