import TasksVisionKernels
import TasksVisionVectorFMA

// The int8 depthwise row (XNNPACK's `qs8-qc8w-dwconv ... fp32`, its `mul32` form): the row's tap pointers first,
// pixel by pixel (a tap outside the image points at the zero-point row, which adds nothing: the packed bias is
// corrected for it), then per block of `qs8DepthwiseChannels` channels, four pixels at a time: 32-bit sums from the
// corrected bias, each tap's weights sign-extended once for the four, each pixel's bytes sign-extended and multiplied
// (exact, in any order), then XNNPACK's fp32 requantization in registers. A last partial block reads the bytes past
// the row's last channel (multiplied by zero weights) and stores only its channels.

/// Channels per packed block (`QS8PackedDepthwiseWeights.cr`).
public let qs8DepthwiseChannels = QDSums.scalarCount

public func qs8QC8WDepthwiseRow(_ p: QS8DepthwiseRowArguments) {
    precondition(p.weights.cr == QDSums.scalarCount, "depthwise weights packed for another kernel")
    qs8DepthwiseWindows(p) { p, taps, bases, tables, out, count in qs8DepthwiseBlocks(p, taps, bases, tables, out, count) }
}

/// Calls `body` for the row's pixels in groups of four (the last group smaller), with where each reads: tap t of
/// pixel i at `bases[i] + tables[i][t]` (byte offsets). Interior pixels share one table of the window's offsets
/// from their origin; a pixel at the border gets its own offsets from the image (the zero-point row's for taps
/// outside it), computed for it alone.
@inline(__always) func qs8DepthwiseWindows(_ p: QS8DepthwiseRowArguments,
                                           _ body: (QS8DepthwiseRowArguments, Int, UnsafePointer<UnsafePointer<Int8>>,
                                                    UnsafePointer<UnsafePointer<Int>>, Int, Int) -> Void) {
    let taps = p.kH &* p.kW, c = p.channels
    let rowsInside = p.iy0 >= 0 && p.iy0 &+ (p.kH &- 1) &* p.dilationH < p.inH
    // Interior pixels: ix0 >= 0 and the window's last column inside.
    let first = (p.padLeft &+ p.strideW &- 1) / p.strideW
    let lastColumn = (p.kW &- 1) &* p.dilationW
    let end = p.inW &- lastColumn &+ p.padLeft > 0 ? (p.inW &- lastColumn &+ p.padLeft &- 1) / p.strideW &+ 1 : 0
    let interiorLo = rowsInside ? minInt(first, p.outW) : p.outW, interiorHi = rowsInside ? minInt(end, p.outW) : 0
    withUnsafeTemporaryAllocation(of: Int.self, capacity: taps &* 5) { buffer in
        guard let shared = buffer.baseAddress else { return }
        var t = 0
        for ky in 0..<p.kH {
            for kx in 0..<p.kW {
                shared[t] = (ky &* p.dilationH &* p.inW &+ kx &* p.dilationW) &* c
                t &+= 1
            }
        }
        let own = shared + taps
        var bases = (p.input, p.input, p.input, p.input)
        var tables = (UnsafePointer(shared), UnsafePointer(shared), UnsafePointer(shared), UnsafePointer(shared))
        var ox = 0
        while ox < p.outW {
            let count = minInt(4, p.outW &- ox)
            for i in 0..<count {
                let x = ox &+ i
                let base: UnsafePointer<Int8>, table: UnsafePointer<Int>
                if x >= interiorLo && x < interiorHi {
                    base = p.input + (p.iy0 &* p.inW &+ x &* p.strideW &- p.padLeft) &* c
                    table = UnsafePointer(shared)
                } else {
                    let mine = own + i &* taps
                    var t = 0
                    for ky in 0..<p.kH {
                        for kx in 0..<p.kW {
                            mine[t] = p.tap(ky, kx, x) - p.input
                            t &+= 1
                        }
                    }
                    base = p.input
                    table = UnsafePointer(mine)
                }
                switch i {
                case 0: bases.0 = base; tables.0 = table
                case 1: bases.1 = base; tables.1 = table
                case 2: bases.2 = base; tables.2 = table
                default: bases.3 = base; tables.3 = table
                }
            }
            withUnsafePointer(to: &bases) { b in
                withUnsafePointer(to: &tables) { tb in
                    b.withMemoryRebound(to: UnsafePointer<Int8>.self, capacity: 4) { b in
                        tb.withMemoryRebound(to: UnsafePointer<Int>.self, capacity: 4) { tb in
                            body(p, taps, b, tb, ox, count)
                        }
                    }
                }
            }
            ox &+= count
        }
    }
}

/// Every block of channels of a group of up to four pixels.
@inline(__always) func qs8DepthwiseBlocks(_ p: QS8DepthwiseRowArguments, _ taps: Int,
                                          _ bases: UnsafePointer<UnsafePointer<Int8>>,
                                          _ tables: UnsafePointer<UnsafePointer<Int>>, _ ox: Int, _ pixels: Int) {
    let w = p.weights, cr = QDSums.scalarCount, c = p.channels
    let q = p.quantization
    let lo = QDFloats(repeating: Float(q.min &- q.zeroPoint)), hi = QDFloats(repeating: Float(q.max &- q.zeroPoint))
    let zp = QDSums(repeating: q.zeroPoint)
    let x0 = bases[0], x1 = bases[pixels > 1 ? 1 : 0], x2 = bases[pixels > 2 ? 2 : 0], x3 = bases[pixels > 3 ? 3 : 0]
    let o0 = tables[0], o1 = tables[pixels > 1 ? 1 : 0], o2 = tables[pixels > 2 ? 2 : 0]
    let o3 = tables[pixels > 3 ? 3 : 0]
    for block in p.firstBlock..<minInt(p.endBlock, w.blocks) {
        let c0 = block &* cr, count = minInt(cr, c &- c0)
        let bias = UnsafeRawPointer(w.bias(block)).loadUnaligned(as: QDSums.self)
        let scale = UnsafeRawPointer(w.scales(block)).loadUnaligned(as: QDFloats.self)
        var a0 = bias, a1 = bias, a2 = bias, a3 = bias
        var wt = w.weights(block)
        let y0 = x0 + c0, y1 = x1 + c0, y2 = x2 + c0, y3 = x3 + c0
        for i in 0..<taps {
            let k = qs8Widen(wt)
            a0 &+= qs8Widen(y0 + o0[i]) &* k
            a1 &+= qs8Widen(y1 + o1[i]) &* k
            a2 &+= qs8Widen(y2 + o2[i]) &* k
            a3 &+= qs8Widen(y3 + o3[i]) &* k
            wt += cr
        }
        let out = p.output + (ox &* c &+ c0)
        qs8DepthwiseStore(qs8DepthwiseRequantize(a0, scale, lo, hi, zp), out, count)
        if pixels > 1 { qs8DepthwiseStore(qs8DepthwiseRequantize(a1, scale, lo, hi, zp), out + c, count) }
        if pixels > 2 { qs8DepthwiseStore(qs8DepthwiseRequantize(a2, scale, lo, hi, zp), out + 2 &* c, count) }
        if pixels > 3 { qs8DepthwiseStore(qs8DepthwiseRequantize(a3, scale, lo, hi, zp), out + 3 &* c, count) }
    }
}

/// A vector's worth of bytes at `p`, sign-extended to 32-bit lanes.
@_transparent func qs8Widen(_ p: UnsafePointer<Int8>) -> QDSums {
    widenBytes(UnsafeRawPointer(p).loadUnaligned(as: QDBytes.self))
}

/// `count` channels of a requantized vector (all of them with one store).
@_transparent func qs8DepthwiseStore(_ bytes: QDBytes, _ out: UnsafeMutablePointer<Int8>, _ count: Int) {
    if count == QDBytes.scalarCount {
        UnsafeMutableRawPointer(out).storeBytes(of: bytes, as: QDBytes.self)
    } else {
        for j in 0..<count { out[j] = bytes[j] }
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
