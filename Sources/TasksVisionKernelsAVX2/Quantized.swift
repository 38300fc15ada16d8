import TasksVisionVectorFMA

// The int8 templates of Sources/MicrokernelTemplates on 256-bit AVX2 vectors: products of sign-extended 16-bit
// lanes summed in pairs (`vpmaddwd`, TasksVisionVectorFMA's `multiplyAddPairs`), as XNNPACK's AVX2 "madd" kernels.

/// Eight 32-bit sums, one per column.
typealias QSums = SIMD8<Int32>
typealias QFloats = SIMD8<Float>
typealias QBytes = SIMD8<Int8>
/// The running sums of 8 columns in pairs: columns 0-3, then 4-7, two lanes each (k 0-1 and k 2-3 of each group).
struct QAcc { var low: SIMD8<Int32>; var high: SIMD8<Int32> }
/// Four k of 8 columns, sign-extended: columns 0-3, then 4-7.
struct QWeights { var low: SIMD16<Int16>; var high: SIMD16<Int16> }
/// A row's four input values, sign-extended, repeated across the 16 lanes.
typealias QBroadcast = SIMD16<Int16>

let qs8VectorColumns = 8
/// 4 rows x 1 vector: 8 accumulator registers (pairs), 2 of weights and a broadcast of the 16.
let qs8TileRows = 4
let qs8TileVectors = 1
let qs8InputOffset: Int32 = 0

@_transparent func qs8Begin(_ bias: QSums) -> QAcc { QAcc(low: SIMD8(), high: SIMD8()) }
@_transparent func qs8Sums(_ acc: QAcc, _ bias: QSums) -> QSums {
    QSums(lowHalf: acc.low.evenHalf &+ acc.low.oddHalf, highHalf: acc.high.evenHalf &+ acc.high.oddHalf) &+ bias
}
@_transparent func qs8LoadWeights(_ p: UnsafePointer<Int8>) -> QWeights {
    let raw = UnsafeRawPointer(p)
    return QWeights(low: SIMD16<Int16>(truncatingIfNeeded: raw.loadUnaligned(as: SIMD16<Int8>.self)),
                    high: SIMD16<Int16>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 16,
                                                                              as: SIMD16<Int8>.self)))
}
@_transparent func qs8Broadcast(_ p: UnsafePointer<Int8>) -> QBroadcast {
    let four = SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Int8>.self))
    let eight = SIMD8<Int16>(lowHalf: four, highHalf: four)
    return QBroadcast(lowHalf: eight, highHalf: eight)
}
@_transparent func qs8Dot(_ acc: QAcc, _ a: QBroadcast, _ w: QWeights) -> QAcc {
    QAcc(low: acc.low &+ multiplyAddPairs(w.low, a), high: acc.high &+ multiplyAddPairs(w.high, a))
}

/// The depthwise template's vectors: 8 channels a block, sign-extended to 32-bit lanes and multiplied.
typealias QDSums = SIMD8<Int32>
typealias QDFloats = SIMD8<Float>
typealias QDBytes = SIMD8<Int8>
typealias SIMDQDUnsigned = SIMD8<UInt8>

/// The 16-bit depthwise template's vectors: 16 channels a block, products in 16-bit lanes (`vpmullw`).
typealias QMBytes = SIMD16<Int8>
typealias QMWords = SIMD16<Int16>
typealias QMHalfWords = SIMD8<Int16>
@_transparent func qs8WidenToWords(_ b: QMBytes) -> QMWords { widenBytesToWords(b) }

/// The table lookup's vectors (`x8-lut`): 32 bytes, AVX2's `vpshufb`.
typealias LUTBytes = SIMD32<UInt8>
typealias LUTIndices = SIMD32<Int8>
