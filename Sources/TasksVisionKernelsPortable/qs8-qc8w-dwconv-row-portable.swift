import TasksVisionKernels

// The portable int8 depthwise row: per output pixel and packed block of channels, 32-bit sums from the corrected
// bias over the window's taps (ky, then kx; taps outside the image read the zero-point row), then XNNPACK's fp32
// requantization.

/// Channels per packed block of the portable depthwise kernel.
public let qs8DepthwisePortableChannels = 8

/// Widens 8 bytes at `p` to 32-bit lanes (the bytes past a row's last channel meet zero weights).
@inline(__always) private func widen(_ p: UnsafePointer<Int8>) -> SIMD8<Int32> {
    SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int8>.self))
}

public func qs8QC8WDepthwiseRow(_ p: QS8DepthwiseRowArguments) {
    let w = p.weights, cr = w.cr, c = p.channels
    precondition(cr == 8, "the portable int8 depthwise kernel runs weights packed 8 channels a block")
    for ox in 0..<p.outW {
        let out = p.output + ox &* c
        for block in 0..<w.blocks {
            let c0 = block &* cr, count = Swift.min(cr, c &- c0)
            let weights = w.weights(block), scales = w.scales(block)
            var acc = UnsafeRawPointer(w.bias(block)).loadUnaligned(as: SIMD8<Int32>.self)
            var t = 0
            for ky in 0..<p.kH {
                for kx in 0..<p.kW {
                    acc &+= widen(p.tap(ky, kx, ox) + c0) &* widen(weights + t &* cr)
                    t &+= 1
                }
            }
            for j in 0..<count {
                out[c0 &+ j] = requantizeQS8(acc[j], scale: scales[j], zeroPoint: p.quantization.zeroPoint,
                                             min: p.quantization.min, max: p.quantization.max)
            }
        }
    }
}
