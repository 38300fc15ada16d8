import TasksVisionFormat

/// 8-bit layers that move bytes: RESIZE_NEAREST_NEIGHBOR (TFLite's built-in kernel; the delegate does not take it),
/// CONCATENATION of inputs quantized alike, PAD with the zero point (or PADV2's value), and a copy.

/// RESIZE_NEAREST_NEIGHBOR as TFLite's `optimized_ops::ResizeNearestNeighbor`: without corner alignment or half-pixel
/// centers, source index `(y * ((inH << 16) / outH + 1)) >> 16`; otherwise the reference kernel's float rule.
final class QuantizedResizeNearestLayer: Layer {
    let kind = "RESIZE_NEAREST_NEIGHBOR"
    let input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>
    let batch: Int, inH: Int, inW: Int, channels: Int, outH: Int, outW: Int
    let rows: [Int], columns: [Int]

    init(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, batch: Int, inH: Int, inW: Int, channels: Int,
         outH: Int, outW: Int, alignCorners: Bool, halfPixelCenters: Bool) {
        self.input = input.assumingMemoryBound(to: UInt8.self)
        self.output = output.assumingMemoryBound(to: UInt8.self)
        self.batch = batch; self.inH = inH; self.inW = inW; self.channels = channels; self.outH = outH
        self.outW = outW
        rows = Self.sources(inSize: inH, outSize: outH, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
        columns = Self.sources(inSize: inW, outSize: outW, alignCorners: alignCorners,
                               halfPixelCenters: halfPixelCenters)
    }

    /// The source index of each output index along one axis.
    static func sources(inSize: Int, outSize: Int, alignCorners: Bool, halfPixelCenters: Bool) -> [Int] {
        if !alignCorners && !halfPixelCenters {
            let scale = Int64((inSize << 16) / outSize + 1)
            return (0..<outSize).map { min(Int((Int64($0) * scale) >> 16), inSize - 1) }
        }
        // reference_ops::ResizeNearestNeighbor: the scale in float, the offset of half-pixel centers.
        let scale = alignCorners && outSize > 1 ? Float(inSize - 1) / Float(outSize - 1)
                                                : Float(inSize) / Float(outSize)
        let offset: Float = halfPixelCenters ? 0.5 : 0
        return (0..<outSize).map { i in
            let v = (Float(i) + offset) * scale
            var s = alignCorners ? Int(v.rounded(.toNearestOrAwayFromZero)) : Int(v.rounded(.down))
            s = min(s, inSize - 1)
            if halfPixelCenters { s = max(0, s) }
            return s
        }
    }

    var flops: Double { Double(batch * outH * outW * channels) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        for n in 0..<batch {
            for (oy, iy) in rows.enumerated() {
                for (ox, ix) in columns.enumerated() {
                    (output + ((n * outH + oy) * outW + ox) * channels)
                        .update(from: input + ((n * inH + iy) * inW + ix) * channels, count: channels)
                }
            }
        }
    }
}

/// CONCATENATION of 8-bit tensors that share the output's scale and zero point (XNNPACK's copy), or, with other
/// scales, TFLite's built-in requantizing kernel (`ConcatenationWithScaling`: `round(q * scale + bias)` in float,
/// `scale = inputScale / outputScale`, `bias = -inputZeroPoint * scale`, plus the output zero point, clamped).
final class QuantizedConcatenationLayer: Layer {
    let kind = "CONCATENATION"
    struct Part {
        let input: UnsafePointer<UInt8>
        /// Bytes of one outer slice of this input.
        let run: Int
        /// The conversion of each input byte, or nil for a copy.
        let table: [UInt8]?
    }
    let parts: [Part]
    let output: UnsafeMutablePointer<UInt8>
    let outer: Int

    init(parts: [Part], output: UnsafeMutableRawPointer, outer: Int) {
        self.parts = parts; self.output = output.assumingMemoryBound(to: UInt8.self); self.outer = outer
    }

    var flops: Double { Double(outer * parts.reduce(0) { $0 + $1.run }) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        var out = output
        for o in 0..<outer {
            for p in parts {
                let src = p.input + o * p.run
                if let table = p.table {
                    for i in 0..<p.run { out[i] = table[Int(src[i])] }
                } else {
                    out.update(from: src, count: p.run)
                }
                out += p.run
            }
        }
    }

    /// The byte table of TFLite's requantizing concatenation for one input.
    static func tfliteTable(from x: QuantizedActivation, to y: QuantizedActivation) -> [UInt8] {
        let scale = x.scale * (1 / y.scale)
        let bias = -Float(x.zeroPoint) * scale
        return (0..<256).map { byte in
            let q = x.type == .int8 ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
            let v = Int32((Float(q) * scale + bias).rounded(.toNearestOrAwayFromZero)) + y.zeroPoint
            return UInt8(truncatingIfNeeded: min(max(v, y.lo), y.hi))
        }
    }
}

/// PAD and PADV2 of an 8-bit tensor: the padding is the output zero point (the quantized 0) or PADV2's constant.
final class QuantizedPadLayer: Layer {
    let kind: String
    let input: UnsafePointer<UInt8>, output: UnsafeMutablePointer<UInt8>
    let inShape: [Int], outShape: [Int], before: [Int]
    let value: UInt8

    init(kind: String, input: UnsafeRawPointer, inShape: [Int], output: UnsafeMutableRawPointer, outShape: [Int],
         before: [Int], value: UInt8) {
        self.kind = kind
        self.input = input.assumingMemoryBound(to: UInt8.self)
        self.output = output.assumingMemoryBound(to: UInt8.self)
        self.inShape = inShape; self.outShape = outShape; self.before = before; self.value = value
    }

    var flops: Double { Double(outShape.reduce(1, *)) }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        let total = outShape.reduce(1, *)
        output.update(repeating: value, count: total)
        let rank = inShape.count
        guard rank > 0, inShape.reduce(1, *) > 0 else { return }
        var outStrides = [Int](repeating: 1, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { outStrides[d] = outStrides[d + 1] * outShape[d + 1] }
        let inner = inShape[rank - 1]
        let rows = inShape.reduce(1, *) / inner
        var index = [Int](repeating: 0, count: rank)
        for r in 0..<rows {
            var offset = before[rank - 1]
            for d in 0..<(rank - 1) { offset += (index[d] + before[d]) * outStrides[d] }
            (output + offset).update(from: input + r * inner, count: inner)
            var d = rank - 2
            while d >= 0 {
                index[d] += 1
                if index[d] < inShape[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}

/// A copy of an 8-bit tensor's bytes (RESHAPE and the like when the output cannot share the input's memory).
final class ByteCopyLayer: Layer {
    let kind: String
    let input: UnsafeRawPointer, output: UnsafeMutableRawPointer
    let count: Int

    init(kind: String, input: UnsafeRawPointer, output: UnsafeMutableRawPointer, count: Int) {
        self.kind = kind; self.input = input; self.output = output; self.count = count
    }

    var parallelWork: Double { Double(count) }

    func run(_ context: RunContext) { output.copyMemory(from: input, byteCount: count) }
}

/// 8-bit RESIZE_BILINEAR as XNNPACK's `s8-ibilinear` / `u8-ibilinear` (the delegate takes it): the source
/// coordinates of its indirection setup in float (TensorFlow's legacy rule, corner alignment or half-pixel centers),
/// each fraction as 11-bit weights (`lrintf(alpha * 2048)`), then in 32-bit integers
/// `t = (tl << 11) + (tr - tl) * ah`, the same for the bottom row, `(t << 11) + (b - t) * av`, plus 2^21, shifted
/// right by 22.
final class QuantizedResizeBilinearLayer: Layer {
    let kind = "RESIZE_BILINEAR"
    let input: UnsafeRawPointer, output: UnsafeMutableRawPointer
    let type: TensorType
    let batch: Int, inH: Int, inW: Int, channels: Int, outH: Int, outW: Int
    let rows: [(top: Int, bottom: Int, alpha: Int32)], columns: [(left: Int, right: Int, alpha: Int32)]

    init(input: UnsafeRawPointer, output: UnsafeMutableRawPointer, type: TensorType, batch: Int, inH: Int, inW: Int,
         channels: Int, outH: Int, outW: Int, alignCorners: Bool, halfPixelCenters: Bool) {
        self.input = input; self.output = output; self.type = type
        self.batch = batch; self.inH = inH; self.inW = inW; self.channels = channels; self.outH = outH
        self.outW = outW
        let legacy = !halfPixelCenters
        rows = Self.axis(inSize: inH, outSize: outH, alignCorners: alignCorners, legacy: legacy)
            .map { (top: $0.0, bottom: $0.1, alpha: $0.2) }
        columns = Self.axis(inSize: inW, outSize: outW, alignCorners: alignCorners, legacy: legacy)
            .map { (left: $0.0, right: $0.1, alpha: $0.2) }
    }

    /// `xnn_indirection_init_resize_bilinear2d_hwc_q11` along one axis.
    static func axis(inSize: Int, outSize: Int, alignCorners: Bool, legacy: Bool) -> [(Int, Int, Int32)] {
        let adjustment = alignCorners && outSize != 1 ? 1 : 0
        let scale = Float(inSize - adjustment) / Float(outSize - adjustment)
        let maxIndex = Float(inSize - 1)
        let offset = 0.5 * scale - 0.5
        return (0..<outSize).map { o in
            var position: Float
            if legacy || alignCorners {
                position = min(Float(o) * scale, maxIndex)
            } else {
                position = min(max(Float(o) * scale + offset, 0), maxIndex)
            }
            let first = Int(position)
            let second = min(first + 1, inSize - 1)
            let alpha = position - Float(first)
            return (first, second, Int32(Int16(truncatingIfNeeded: lrintf(alpha * 2048))))
        }
    }

    var flops: Double { Double(batch * outH * outW * channels) * 6 }
    var parallelWork: Double { flops * memoryBoundWorkFactor }

    func run(_ context: RunContext) {
        if type == .int8 { run(Int8.self) } else { run(UInt8.self) }
    }

    private func run<T: FixedWidthInteger>(_: T.Type) {
        let x = input.assumingMemoryBound(to: T.self), y = output.assumingMemoryBound(to: T.self)
        let c = channels
        for n in 0..<batch {
            let image = x + n * inH * inW * c
            for (oy, r) in rows.enumerated() {
                let av = Int32(UInt16(truncatingIfNeeded: r.alpha))
                for (ox, col) in columns.enumerated() {
                    let ah = Int32(UInt16(truncatingIfNeeded: col.alpha))
                    let tl = image + (r.top * inW + col.left) * c, tr = image + (r.top * inW + col.right) * c
                    let bl = image + (r.bottom * inW + col.left) * c, br = image + (r.bottom * inW + col.right) * c
                    let out = y + ((n * outH + oy) * outW + ox) * c
                    for ch in 0..<c {
                        let t = (Int32(tl[ch]) << 11) &+ (Int32(tr[ch]) - Int32(tl[ch])) &* ah
                        let b = (Int32(bl[ch]) << 11) &+ (Int32(br[ch]) - Int32(bl[ch])) &* ah
                        let acc = (t << 11) &+ (b &- t) &* av
                        out[ch] = T(truncatingIfNeeded: (acc &+ 0x0020_0000) >> 22)
                    }
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
