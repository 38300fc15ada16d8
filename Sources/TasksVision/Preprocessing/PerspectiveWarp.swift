/// OpenCV's `warpPerspective` with `INTER_LINEAR` on 8-bit pixels, three channels out, as MediaPipe's CPU
/// `ImageToTensorCalculator` runs it (imgwarp.cpp: `WarpPerspectiveInvoker`, then `remapBilinear`).
///
/// The output goes in OpenCV's blocks (16 rows of up to 1024 / 16 columns). Per block, a first pass finds each
/// pixel's source position in doubles, rounded to 1/32 pixel, two pixels per vector step with OpenCV's operations
/// in its order; a second pass blends the 2x2 neighbours with 15-bit weights. The sampling loop is short, so the
/// source pixels of many outputs are in flight at once: a hand crop of a 1280x720 frame reads most of the image,
/// mostly from memory, and a loop that also did the divisions waited on each fetch in turn.
enum PerspectiveWarp {
    /// Where the pixels come from: the stored image, its geometry and the byte offsets of R, G and B in a pixel.
    struct Source {
        var base: UnsafePointer<UInt8>
        var width: Int
        var height: Int
        var bytesPerRow: Int
        var bytesPerPixel: Int
        var channelOffsets: (Int, Int, Int)
    }

    /// Writes `width` x `height` RGB pixels to `out`: pixel (x, y) samples the source at `matrix` (x, y, 1)
    /// (row-major 3x3, destination to source, projective).
    static func run(_ source: Source, matrix: [Double], width: Int, height: Int, border: ImageToTensor.BorderMode,
                    into out: UnsafeMutablePointer<UInt8>) {
        guard matrix.count == 9, width > 0, height > 0 else { return }
        let m = (matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7], matrix[8])
        // OpenCV's block: a row's positions restart from the block's first column.
        let blockH = Swift.min(16, height)
        let blockW = Swift.min(1024 / blockH, width)
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 3 * 1024) { buffer in
            guard let xs = buffer.baseAddress else { return }
            let ys = xs + 1024, alphas = ys + 1024
            var yb = 0
            while yb < height {
                let bh = Swift.min(blockH, height - yb)
                var xb = 0
                while xb < width {
                    let bw = Swift.min(blockW, width - xb)
                    for y1 in 0..<bh {
                        let i = y1 * bw
                        positions(m, row: yb + y1, firstColumn: xb, count: bw, xs + i, ys + i, alphas + i)
                    }
                    for y1 in 0..<bh {
                        let i = y1 * bw
                        sample(source, xs + i, ys + i, alphas + i, count: bw, border: border,
                               into: out + ((yb + y1) * width + xb) * 3)
                    }
                    xb += bw
                }
                yb += bh
            }
        }
    }

    /// `interBits`: source positions in 1/32 pixel.
    static let interBits = 5

    /// Source positions of `count` pixels of a row from `firstColumn`: whole pixel in `xs`/`ys`, the 1/32 fraction
    /// as `fy * 32 + fx` in `alphas`. Each lane computes exactly OpenCV's scalar expression: `W0 + M6 * x1`,
    /// `W ? 32 / W : 0`, `(X0 + M0 * x1) * W` clamped to the Int32 range, rounded half to even.
    @inline(__always)
    private static func positions(_ m: (Double, Double, Double, Double, Double, Double, Double, Double, Double),
                                  row y: Int, firstColumn xb: Int, count: Int, _ xs: UnsafeMutablePointer<Int32>,
                                  _ ys: UnsafeMutablePointer<Int32>, _ alphas: UnsafeMutablePointer<Int32>) {
        typealias V = SIMD2<Double>
        let X0 = V(repeating: m.0 * Double(xb) + m.1 * Double(y) + m.2)
        let Y0 = V(repeating: m.3 * Double(xb) + m.4 * Double(y) + m.5)
        let W0 = V(repeating: m.6 * Double(xb) + m.7 * Double(y) + m.8)
        let m0 = V(repeating: m.0), m3 = V(repeating: m.3), m6 = V(repeating: m.6)
        let tab = V(repeating: Double(1 << interBits))
        let lo = V(repeating: Double(Int32.min)), hi = V(repeating: Double(Int32.max))
        // 1.5 * 2^52 added: the low 32 bits of the sum are the value rounded half to even, as two's complement.
        let magic = V(repeating: 0x1.8p52)
        let mask = Int32((1 << interBits) - 1)
        var x1 = 0
        while x1 < count {
            let x = V(Double(x1), Double(x1 + 1))
            let w = W0 + m6 * x
            let scale = (tab / w).replacing(with: 0, where: w .== 0)
            // Swift.min(hi, v) and Swift.max(lo, v), lane by lane (NaN becomes hi, as there).
            var fx = (X0 + m0 * x) * scale, fy = (Y0 + m3 * x) * scale
            fx = fx.replacing(with: hi, where: .!(fx .< hi)); fx = fx.replacing(with: lo, where: .!(fx .>= lo))
            fy = fy.replacing(with: hi, where: .!(fy .< hi)); fy = fy.replacing(with: lo, where: .!(fy .>= lo))
            let bx = unsafeBitCast(fx + magic, to: SIMD2<UInt64>.self)
            let by = unsafeBitCast(fy + magic, to: SIMD2<UInt64>.self)
            for lane in 0..<Swift.min(2, count - x1) {
                let X = Int32(truncatingIfNeeded: bx[lane]), Y = Int32(truncatingIfNeeded: by[lane])
                xs[x1 + lane] = X >> Int32(interBits)
                ys[x1 + lane] = Y >> Int32(interBits)
                alphas[x1 + lane] = (Y & mask) << Int32(interBits) | (X & mask)
            }
            x1 += 2
        }
    }

    /// Blends `count` pixels at the given source positions into RGB at `out`.
    @inline(__always)
    private static func sample(_ s: Source, _ xs: UnsafePointer<Int32>, _ ys: UnsafePointer<Int32>,
                               _ alphas: UnsafePointer<Int32>, count: Int, border: ImageToTensor.BorderMode,
                               into out: UnsafeMutablePointer<UInt8>) {
        let tab = 1 << interBits, bits = interBits
        let base = s.base, stride = s.bytesPerRow, bpp = s.bytesPerPixel
        let (ro, go, bo) = s.channelOffsets
        let innerW = UInt(bitPattern: s.width - 1), innerH = UInt(bitPattern: s.height - 1)
        let zero = border == .zero
        for i in 0..<count {
            let sx = Int(xs[i]), sy = Int(ys[i]), a = Int(alphas[i])
            let ax = a & (tab - 1), ay = a >> bits
            let d = out + i * 3
            if UInt(bitPattern: sx) < innerW && UInt(bitPattern: sy) < innerH {
                // OpenCV's sum with the 15-bit weights w = wx * wy * 32 is 32 times the horizontal-then-vertical blend
                // u = (32 - ay) * ((32 - ax) * p00 + ax * p01) + ay * ((32 - ax) * p10 + ax * p11), so its
                // (v + 2^14) >> 15 is (u + 2^9) >> 10, at most 255. u < 2^18: the three channels blend at once in
                // 21-bit lanes of one 64-bit integer, without carries between them.
                let p0 = base + (sy &* stride &+ sx &* bpp), p1 = p0 + stride
                @inline(__always) func lanes(_ p: UnsafePointer<UInt8>) -> UInt64 {
                    UInt64(p[ro]) | UInt64(p[go]) &<< 21 | UInt64(p[bo]) &<< 42
                }
                let bx = UInt64(ax), ax1 = UInt64(tab - ax), by = UInt64(ay), ay1 = UInt64(tab - ay)
                let top = lanes(p0) &* ax1 &+ lanes(p0 + bpp) &* bx
                let bottom = lanes(p1) &* ax1 &+ lanes(p1 + bpp) &* bx
                let u = top &* ay1 &+ bottom &* by &+ Self.laneRounding
                d[0] = UInt8(truncatingIfNeeded: u &>> 10)
                d[1] = UInt8(truncatingIfNeeded: u &>> 31)
                d[2] = UInt8(truncatingIfNeeded: u &>> 52)
                continue
            }
            // Weights of the 2x2 neighbourhood, summing to 2^15.
            let w00 = (tab - ax) * (tab - ay) * 32, w01 = ax * (tab - ay) * 32
            let w10 = (tab - ax) * ay * 32, w11 = ax * ay * 32
            // All four neighbours outside with a zero border (a letterbox's bands): black, without a call.
            if zero && (sx >= s.width || sx < -1 || sy >= s.height || sy < -1) {
                d[0] = 0; d[1] = 0; d[2] = 0
                continue
            }
            borderPixel(s, sx, sy, w00, w01, w10, w11, border: border, into: d)
        }
    }

    /// 2^9 in each 21-bit lane: the rounding of `(u + 2^9) >> 10`.
    static let laneRounding: UInt64 = 512 | 512 << 21 | 512 << 42

    /// A pixel with some neighbours outside the image: those replicated from the nearest edge pixel, or zero.
    private static func borderPixel(_ s: Source, _ sx: Int, _ sy: Int, _ w00: Int, _ w01: Int, _ w10: Int, _ w11: Int,
                                    border: ImageToTensor.BorderMode, into d: UnsafeMutablePointer<UInt8>) {
        let sw = s.width, sh = s.height, stride = s.bytesPerRow, bpp = s.bytesPerPixel, base = s.base
        let replicate = border == .replicate
        @inline(__always) func edge(_ v: Int, _ n: Int) -> Int {
            replicate ? (v >= 0 ? (v < n ? v : n - 1) : 0) : (v >= 0 && v < n ? v : -1)
        }
        let xa = edge(sx, sw), xb = edge(sx + 1, sw), ya = edge(sy, sh), yb = edge(sy + 1, sh)
        // Each neighbour's byte offset, or -1 for a zero one.
        @inline(__always) func at(_ yy: Int, _ xx: Int) -> Int { yy >= 0 && xx >= 0 ? yy * stride + xx * bpp : -1 }
        let q00 = at(ya, xa), q01 = at(ya, xb), q10 = at(yb, xa), q11 = at(yb, xb)
        @inline(__always) func blend(_ off: Int) -> UInt8 {
            @inline(__always) func px(_ q: Int) -> Int { q >= 0 ? Int(base[q + off]) : 0 }
            let v = px(q00) * w00 + px(q01) * w01 + px(q10) * w10 + px(q11) * w11
            return UInt8(clamping: (v + (1 << 14)) >> 15)
        }
        let (ro, go, bo) = s.channelOffsets
        d[0] = blend(ro); d[1] = blend(go); d[2] = blend(bo)
    }
}
