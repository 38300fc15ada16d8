import TasksVisionKernels

/// The tiles' epilogue on one output of the one-column GEMMs: the residual (column `j` of row `r`, where it has one),
/// the clamp, then PReLU.
@_transparent func scalarEpilogue(_ sum: Float, _ p: GEMMArguments, row r: Int, column j: Int, clamps: Bool) -> Float {
    var s = sum
    if let residual = p.residual, j < p.residualChannels { s += residual[r &* p.residualStride &+ j] }
    if clamps {
        let y = p.lo > s ? p.lo : s
        s = p.hi < y ? p.hi : y
    }
    if let alpha = p.alpha, s < 0 { s *= alpha[j] }
    return s
}
