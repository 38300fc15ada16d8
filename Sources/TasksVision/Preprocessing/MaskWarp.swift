/// `cv::warpAffine` on one float channel with `INTER_LINEAR | WARP_INVERSE_MAP` and
/// `BORDER_CONSTANT` 0, as the OpenCV inside MediaPipe computes it for WarpAffineCalculator:
/// the classic path of imgproc/src/imgwarp.cpp (`WarpAffineInvoker` then `remapBilinear`).
///
/// Source positions are fixed point: per column `cvRound(M0 * x * 1024)`, per row
/// `cvRound((M1 * y + M2) * 1024) + 16` (in double), their sum shifted to 1/32 pixel; the
/// weights of the 2x2 neighbourhood come from OpenCV's float table (`BilinearTab_f`, products of
/// `1 - i/32` and `i/32`, all exact) and are summed in float in OpenCV's order. Neighbours
/// outside the source read as 0; a neighbourhood wholly outside gives 0.
///
/// (The `opencv-python` 5.1 wheel runs newer float kernels here, sampling at unrounded float
/// positions; MediaPipe's masks match this path bit for bit, not those.)
enum MaskWarp {
    /// OpenCV's `INTER_BITS` and `AB_BITS`: positions to 1/32 pixel, matrix terms to 1/1024.
    static let interBits = 5, abBits = 10

    /// `BilinearTab_f`: for each of the 32 x 32 fractional positions, the weights of
    /// (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1).
    static let bilinearTable: [Float] = {
        let n = 1 << interBits, scale = 1 / Float(n)
        var tab = [Float](repeating: 0, count: n * n * 4)
        for i in 0..<n {
            for j in 0..<n {
                let vy = [1 - Float(i) * scale, Float(i) * scale], vx = [1 - Float(j) * scale, Float(j) * scale]
                for k1 in 0..<2 { for k2 in 0..<2 { tab[(i * n + j) * 4 + k1 * 2 + k2] = vy[k1] * vx[k2] } }
            }
        }
        return tab
    }()

    /// `outputWidth * outputHeight` values; `m` (2x3, row-major) maps output pixels to input pixels.
    static func warpAffine(_ src: [Float], width: Int, height: Int, inverseMatrix m: [Float], outputWidth: Int,
                           outputHeight: Int) -> [Float] {
        var out = [Float](repeating: 0, count: max(0, outputWidth) * max(0, outputHeight))
        guard width > 0, height > 0, outputWidth > 0, outputHeight > 0, m.count == 6, src.count >= width * height else {
            return out
        }
        // warpAffine converts the float matrix to double.
        let d = m.map { Double($0) }
        let abScale = Double(1 << abBits), roundDelta = Int32((1 << abBits) >> (interBits + 1))
        let adelta = (0..<outputWidth).map { cvRound(d[0] * Double($0) * abScale) }
        let bdelta = (0..<outputWidth).map { cvRound(d[3] * Double($0) * abScale) }
        let tabMask = Int32((1 << interBits) - 1)
        bilinearTable.withUnsafeBufferPointer { tab in
            src.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    for y in 0..<outputHeight {
                        let x0 = cvRound((d[1] * Double(y) + d[2]) * abScale) &+ roundDelta
                        let y0 = cvRound((d[4] * Double(y) + d[5]) * abScale) &+ roundDelta
                        for x in 0..<outputWidth {
                            // warpAffineBlockline: 32-bit sums, shifted to 1/32 pixel.
                            let X = (x0 &+ adelta[x]) >> Int32(abBits - interBits)
                            let Y = (y0 &+ bdelta[x]) >> Int32(abBits - interBits)
                            // The integer part is stored as a short (saturating), the fraction as a table index.
                            let sx = Int(Int16(clamping: X >> Int32(interBits)))
                            let sy = Int(Int16(clamping: Y >> Int32(interBits)))
                            let w = Int((Y & tabMask) << Int32(interBits) | (X & tabMask)) * 4
                            o[y * outputWidth + x] = sample(s, width: width, height: height, sx: sx, sy: sy,
                                                            w00: tab[w], w01: tab[w + 1], w10: tab[w + 2],
                                                            w11: tab[w + 3])
                        }
                    }
                }
            }
        }
        return out
    }

    /// remapBilinear for one pixel with a constant 0 border.
    @inline(__always) static func sample(_ s: UnsafeBufferPointer<Float>, width: Int, height: Int, sx: Int, sy: Int,
                                         w00: Float, w01: Float, w10: Float, w11: Float) -> Float {
        if sx >= 0 && sx < width - 1 && sy >= 0 && sy < height - 1 {
            let p = sy * width + sx
            return s[p] * w00 + s[p + 1] * w01 + s[p + width] * w10 + s[p + width + 1] * w11
        }
        if sx >= width || sx + 1 < 0 || sy >= height || sy + 1 < 0 { return 0 }
        @inline(__always) func px(_ xx: Int, _ yy: Int) -> Float {
            xx >= 0 && xx < width && yy >= 0 && yy < height ? s[yy * width + xx] : 0
        }
        return px(sx, sy) * w00 + px(sx + 1, sy) * w01 + px(sx, sy + 1) * w10 + px(sx + 1, sy + 1) * w11
    }

    /// OpenCV's `cvRound` of a double (`cvtsd2si`): nearest, ties to even; INT_MIN when the
    /// value does not fit an Int32 (or is NaN), as the instruction gives.
    @inline(__always) static func cvRound(_ v: Double) -> Int32 {
        let r = v.rounded(.toNearestOrEven)
        guard r >= -2147483648, r <= 2147483647 else { return Int32.min }
        return Int32(r)
    }
}
