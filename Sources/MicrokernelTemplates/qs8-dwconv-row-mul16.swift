import TasksVisionKernels
import TasksVisionVectorFMA

// The int8 depthwise row in 16-bit products (XNNPACK's `mul16_add16` form): per block of `QMWords.scalarCount`
// channels, each tap's bytes sign-extended to 16 bits and multiplied by its weights (`vpmullw`; |x * w| <= 128 * 127
// fits), two taps' products added in 16 bits (at most 32512: the weights must lie in [-127, 127], which
// the layer checks before it chooses this kernel), each pair widened to 32 bits and added to the sums.
// Four pixels at a time share each tap's weights (`qs8DepthwiseWindows`). Sums exact, as the `mul32` template's; same requantization.

/// Channels per packed block of this kernel.
public let qs8DepthwiseMul16Channels = QMWords.scalarCount

public func qs8QC8WDepthwiseRowMul16(_ p: QS8DepthwiseRowArguments) {
    precondition(p.weights.cr == QMWords.scalarCount, "depthwise weights packed for another kernel")
    qs8DepthwiseWindows(p) { p, taps, bases, tables, ox, pixels in
        qs8DepthwiseMul16Blocks(p, taps, bases, tables, ox, pixels)
    }
}

/// Sixteen-bit products of one tap's channels.
@_transparent func qs8Products(_ x: UnsafePointer<Int8>, _ w: QMWords) -> QMWords {
    qs8WidenToWords(UnsafeRawPointer(x).loadUnaligned(as: QMBytes.self)) &* w
}

/// A pair sum's two halves added to the pixel's two vectors of sums.
@_transparent func qs8AddPairs(_ lo: inout QDSums, _ hi: inout QDSums, _ pair: QMWords) {
    let halves = unsafeBitCast(pair, to: (QMHalfWords, QMHalfWords).self)
    lo &+= widenWords(halves.0)
    hi &+= widenWords(halves.1)
}

@inline(__always) func qs8DepthwiseMul16Blocks(_ p: QS8DepthwiseRowArguments, _ taps: Int,
                                               _ bases: UnsafePointer<UnsafePointer<Int8>>,
                                               _ tables: UnsafePointer<UnsafePointer<Int>>, _ ox: Int,
                                               _ pixels: Int) {
    let w = p.weights, cr = QMWords.scalarCount, half = QDSums.scalarCount, c = p.channels
    let q = p.quantization
    let lo = QDFloats(repeating: Float(q.min &- q.zeroPoint)), hi = QDFloats(repeating: Float(q.max &- q.zeroPoint))
    let zp = QDSums(repeating: q.zeroPoint)
    let pairs = taps / 2, odd = taps % 2 == 1
    let x0 = bases[0], x1 = bases[pixels > 1 ? 1 : 0], x2 = bases[pixels > 2 ? 2 : 0], x3 = bases[pixels > 3 ? 3 : 0]
    let o0 = tables[0], o1 = tables[pixels > 1 ? 1 : 0], o2 = tables[pixels > 2 ? 2 : 0]
    let o3 = tables[pixels > 3 ? 3 : 0]
    for block in p.firstBlock..<minInt(p.endBlock, w.blocks) {
        let c0 = block &* cr, count = minInt(cr, c &- c0)
        let bias = UnsafeRawPointer(w.bias(block))
        let b0 = bias.loadUnaligned(as: QDSums.self)
        let b1 = bias.loadUnaligned(fromByteOffset: half &* 4, as: QDSums.self)
        let scales = UnsafeRawPointer(w.scales(block))
        let s0 = scales.loadUnaligned(as: QDFloats.self)
        let s1 = scales.loadUnaligned(fromByteOffset: half &* 4, as: QDFloats.self)
        let weights = w.weights(block)
        let y0 = x0 + c0, y1 = x1 + c0, y2 = x2 + c0, y3 = x3 + c0
        var l0 = b0, h0 = b1, l1 = b0, h1 = b1, l2 = b0, h2 = b1, l3 = b0, h3 = b1
        var t = 0
        for _ in 0..<pairs {
            let u = qs8WidenToWords(UnsafeRawPointer(weights + t &* cr).loadUnaligned(as: QMBytes.self))
            let v = qs8WidenToWords(UnsafeRawPointer(weights + (t &+ 1) &* cr).loadUnaligned(as: QMBytes.self))
            qs8AddPairs(&l0, &h0, qs8Products(y0 + o0[t], u) &+ qs8Products(y0 + o0[t &+ 1], v))
            qs8AddPairs(&l1, &h1, qs8Products(y1 + o1[t], u) &+ qs8Products(y1 + o1[t &+ 1], v))
            qs8AddPairs(&l2, &h2, qs8Products(y2 + o2[t], u) &+ qs8Products(y2 + o2[t &+ 1], v))
            qs8AddPairs(&l3, &h3, qs8Products(y3 + o3[t], u) &+ qs8Products(y3 + o3[t &+ 1], v))
            t &+= 2
        }
        if odd {
            let u = qs8WidenToWords(UnsafeRawPointer(weights + t &* cr).loadUnaligned(as: QMBytes.self))
            qs8AddPairs(&l0, &h0, qs8Products(y0 + o0[t], u))
            qs8AddPairs(&l1, &h1, qs8Products(y1 + o1[t], u))
            qs8AddPairs(&l2, &h2, qs8Products(y2 + o2[t], u))
            qs8AddPairs(&l3, &h3, qs8Products(y3 + o3[t], u))
        }
        let out = p.output + (ox &* c &+ c0)
        qs8Mul16Store(l0, h0, s0, s1, lo, hi, zp, out, count)
        if pixels > 1 { qs8Mul16Store(l1, h1, s0, s1, lo, hi, zp, out + c, count) }
        if pixels > 2 { qs8Mul16Store(l2, h2, s0, s1, lo, hi, zp, out + 2 &* c, count) }
        if pixels > 3 { qs8Mul16Store(l3, h3, s0, s1, lo, hi, zp, out + 3 &* c, count) }
    }
}

/// A pixel's two vectors of sums requantized and stored (`count` channels).
@_transparent func qs8Mul16Store(_ l: QDSums, _ h: QDSums, _ s0: QDFloats, _ s1: QDFloats, _ lo: QDFloats,
                                 _ hi: QDFloats, _ zp: QDSums, _ out: UnsafeMutablePointer<Int8>, _ count: Int) {
    let half = QDSums.scalarCount
    let first = qs8DepthwiseRequantize(l, s0, lo, hi, zp)
    if count >= half {
        UnsafeMutableRawPointer(out).storeBytes(of: first, as: QDBytes.self)
    } else {
        for j in 0..<count { out[j] = first[j] }
        return
    }
    guard count > half else { return }
    let second = qs8DepthwiseRequantize(h, s1, lo, hi, zp)
    if count == 2 &* half {
        UnsafeMutableRawPointer(out + half).storeBytes(of: second, as: QDBytes.self)
    } else {
        for j in 0..<(count &- half) { out[half &+ j] = second[j] }
    }
}
