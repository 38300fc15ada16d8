// The AVX-512 VNNI kernels (Ice Lake, Cascade Lake, Zen 4 and later): the int8 templates of
// Sources/MicrokernelTemplates on 512-bit vectors with `vpdpbusd`. Package.swift builds this target with
// `-target-cpu cascadelake` on x86-64 (Skylake-X's AVX-512 plus VNNI); nothing here runs unless the CPU has
// AVX-512 and AVX512_VNNI (`QuantizedMicrokernels`). Swift SIMD code cannot express `vpdpbusd`, so it is the
// LLVM intrinsic (TasksVisionVectorFMA's `dotUnsignedBySigned`).
import TasksVisionKernels
import TasksVisionVectorFMA

/// Sixteen 32-bit sums, one per column.
typealias QSums = SIMD16<Int32>
typealias QFloats = SIMD16<Float>
typealias QBytes = SIMD16<Int8>
/// The running sums of a vector of columns; here the sums themselves, from the bias.
typealias QAcc = SIMD16<Int32>
/// Four k of 16 columns (`[16][4]` bytes).
typealias QWeights = SIMD16<Int32>
/// A row's four input bytes, made unsigned (x + 128), in every lane.
typealias QBroadcast = SIMD16<Int32>

let qs8VectorColumns = 16
/// 8 rows x 2 vectors: 16 accumulators, 2 weight vectors and a broadcast of the 32 registers.
let qs8TileRows = 8
let qs8TileVectors = 2
/// `vpdpbusd` multiplies unsigned bytes by signed ones: the input's int8 bytes are offset by 128 (their top bit
/// flipped) and the packed bias takes 128 times each column's weight sum off.
let qs8InputOffset: Int32 = 128

@_transparent func qs8Begin(_ bias: QSums) -> QAcc { bias }
@_transparent func qs8Sums(_ acc: QAcc, _ bias: QSums) -> QSums { acc }
@_transparent func qs8LoadWeights(_ p: UnsafePointer<Int8>) -> QWeights {
    UnsafeRawPointer(p).loadUnaligned(as: QWeights.self)
}
@_transparent func qs8Broadcast(_ p: UnsafePointer<Int8>) -> QBroadcast {
    QBroadcast(repeating: Int32(bitPattern: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))) ^ QBroadcast(
        repeating: Int32(bitPattern: 0x8080_8080))
}
@_transparent func qs8Dot(_ acc: QAcc, _ a: QBroadcast, _ w: QWeights) -> QAcc { dotUnsignedBySigned(acc, a, w) }

@_transparent func minInt(_ a: Int, _ b: Int) -> Int { a < b ? a : b }
@_transparent func maxInt(_ a: Int, _ b: Int) -> Int { a > b ? a : b }
