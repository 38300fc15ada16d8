import TasksVisionKernels
import TasksVisionVectorFMA

// The int8 depthwise row (XNNPACK's `qs8-qc8w-dwconv ... fp32`, its `mul32` form): per output pixel, the window's
// tap pointers first (a tap outside the image points at the zero-point row, which adds nothing: the packed bias is
// corrected for it), then per block of `qs8DepthwiseChannels` channels 32-bit sums from the corrected bias, each tap
// its bytes sign-extended and multiplied by the block's weights of that tap (exact, in any order), then XNNPACK's
// fp32 requantization in registers. A last partial block reads the bytes past the row's last channel (multiplied by
// zero weights) and stores only its channels.

/// Channels per packed block (`QS8PackedDepthwiseWeights.cr`).
public let qs8DepthwiseChannels = QDSums.scalarCount

public func qs8QC8WDepthwiseRow(_ p: QS8DepthwiseRowArguments) {
    let w = p.weights, cr = QDSums.scalarCount, c = p.channels
    precondition(w.cr == cr, "depthwise weights packed for another kernel")
    let taps = p.kH &* p.kW, blocks = w.blocks
    let q = p.quantization
    let lo = QDFloats(repeating: Float(q.min &- q.zeroPoint)), hi = QDFloats(repeating: Float(q.max &- q.zeroPoint))
    let zp = QDSums(repeating: q.zeroPoint)
    withUnsafeTemporaryAllocation(of: UnsafePointer<Int8>.self, capacity: taps) { buffer in
        guard let tapPointers = buffer.baseAddress else { return }
        for ox in 0..<p.outW {
            var t = 0
            for ky in 0..<p.kH {
                for kx in 0..<p.kW {
                    tapPointers[t] = p.tap(ky, kx, ox)
                    t &+= 1
                }
            }
            let out = p.output + ox &* c
            for block in 0..<blocks {
                let c0 = block &* cr
                var acc = UnsafeRawPointer(w.bias(block)).loadUnaligned(as: QDSums.self)
                var wt = w.weights(block)
                for i in 0..<taps {
                    let x = UnsafeRawPointer(tapPointers[i] + c0).loadUnaligned(as: QDBytes.self)
                    acc &+= widenBytes(x) &* widenBytes(UnsafeRawPointer(wt).loadUnaligned(as: QDBytes.self))
                    wt += cr
                }
                let scale = UnsafeRawPointer(w.scales(block)).loadUnaligned(as: QDFloats.self)
                let bytes = qs8DepthwiseRequantize(acc, scale, lo, hi, zp)
                let count = minInt(cr, c &- c0)
                if count == cr {
                    UnsafeMutableRawPointer(out + c0).storeBytes(of: bytes, as: QDBytes.self)
                } else {
                    for j in 0..<count { out[c0 &+ j] = bytes[j] }
                }
            }
        }
    }
}

/// XNNPACK's fp32 requantization (see the GEMM template's `qs8Requantize`) on the depthwise vectors.
@_transparent func qs8DepthwiseRequantize(_ sums: QDSums, _ scale: QDFloats, _ lo: QDFloats, _ hi: QDFloats,
                                          _ zp: QDSums) -> QDBytes {
    let x = convertToFloat(sums) * scale
    var low = QDFloats()
    for i in 0..<QDFloats.scalarCount { low[i] = x[i] < lo[i] ? lo[i] : x[i] }
    var f = QDFloats()
    for i in 0..<QDFloats.scalarCount { f[i] = low[i] > hi[i] ? hi[i] : low[i] }
    let biased = unsafeBitCast(f + QDFloats(repeating: 12_582_912), to: QDSums.self)
    return narrowToBytes(biased &- QDSums(repeating: Int32(bitPattern: 0x4B40_0000)) &+ zp)
}
