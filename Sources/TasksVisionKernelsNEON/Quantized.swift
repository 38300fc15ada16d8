// The int8 templates of Sources/MicrokernelTemplates on 128-bit Advanced SIMD vectors, baseline arm64 (no dot
// product instructions): products of sign-extended 16-bit lanes (`smull`), summed in pairs.

/// Four 32-bit sums, one per column.
typealias QSums = SIMD4<Int32>
typealias QFloats = SIMD4<Float>
typealias QBytes = SIMD4<Int8>
/// The running sums of 4 columns in pairs (k 0-1 and k 2-3 of each group).
typealias QAcc = SIMD8<Int32>
/// Four k of 4 columns, sign-extended.
typealias QWeights = SIMD16<Int16>
/// A row's four input values, sign-extended, repeated across the 16 lanes.
typealias QBroadcast = SIMD16<Int16>

let qs8VectorColumns = 4
/// 4 rows x 2 vectors: 16 accumulator registers (pairs), 4 of weights and 2 of broadcast of the 32.
let qs8TileRows = 4
let qs8TileVectors = 2
let qs8InputOffset: Int32 = 0

@_transparent func qs8Begin(_ bias: QSums) -> QAcc { QAcc() }
@_transparent func qs8Sums(_ acc: QAcc, _ bias: QSums) -> QSums { acc.evenHalf &+ acc.oddHalf &+ bias }
@_transparent func qs8LoadWeights(_ p: UnsafePointer<Int8>) -> QWeights {
    QWeights(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Int8>.self))
}
@_transparent func qs8Broadcast(_ p: UnsafePointer<Int8>) -> QBroadcast {
    let four = SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Int8>.self))
    let eight = SIMD8<Int16>(lowHalf: four, highHalf: four)
    return QBroadcast(lowHalf: eight, highHalf: eight)
}
@_transparent func qs8Dot(_ acc: QAcc, _ a: QBroadcast, _ w: QWeights) -> QAcc {
    let products = SIMD16<Int32>(truncatingIfNeeded: w) &* SIMD16<Int32>(truncatingIfNeeded: a)
    return acc &+ products.evenHalf &+ products.oddHalf
}

/// The depthwise template's vectors: 8 channels a block, sign-extended to 32-bit lanes and multiplied.
typealias QDSums = SIMD8<Int32>
typealias QDFloats = SIMD8<Float>
typealias QDBytes = SIMD8<Int8>
typealias SIMDQDUnsigned = SIMD8<UInt8>
