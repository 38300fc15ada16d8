// The int8 templates of Sources/MicrokernelTemplates on the baseline instruction set: products of sign-extended
// 16-bit lanes summed in pairs, in plain Swift SIMD (SSE2's `pmaddwd` where LLVM finds it).

/// Eight 32-bit sums, one per column.
typealias QSums = SIMD8<Int32>
typealias QFloats = SIMD8<Float>
typealias QBytes = SIMD8<Int8>
/// The running sums of 8 columns in pairs: columns 0-3, then 4-7, two lanes each.
struct QAcc { var low: SIMD8<Int32>; var high: SIMD8<Int32> }
/// Four k of 8 columns, sign-extended: columns 0-3, then 4-7.
struct QWeights { var low: SIMD16<Int16>; var high: SIMD16<Int16> }
/// A row's four input values, sign-extended, repeated across the 16 lanes.
typealias QBroadcast = SIMD16<Int16>

let qs8VectorColumns = 8
let qs8TileRows = 4
let qs8TileVectors = 1
let qs8InputOffset: Int32 = 0

/// The sums of adjacent pairs of 16-bit products, as `pmaddwd`.
@_transparent func multiplyAddPairs(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> SIMD8<Int32> {
    let products = SIMD16<Int32>(truncatingIfNeeded: a) &* SIMD16<Int32>(truncatingIfNeeded: b)
    return products.evenHalf &+ products.oddHalf
}

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
