/// `cv::resize` of one float channel with `INTER_LINEAR`, as the OpenCV inside MediaPipe computes it for
/// the image segmenter's confidence masks (imgproc/src/resize.cpp, `resizeGeneric_` with
/// `HResizeLinear` and `VResizeLinear` on floats).
///
/// Source positions have half-pixel centres: `fx = (float)((dx + 0.5) * scale - 0.5)` in double with
/// `scale = 1 / (dst / src)`, its floor the left neighbour, the rest its weight. Columns left of the first
/// or right of the last source column take that column (weight 0); rows outside are clamped to the first
/// or last row but keep their weights. Each row is first interpolated along x
/// (`S[sx] * (1 - fx) + S[sx + 1] * fx`), then two such rows along y (`r0 * (1 - fy) + r1 * fy`), each
/// product rounded to float before the sum. An output of exactly half the source in both directions is
/// what OpenCV turns into `INTER_AREA`: the mean of each 2x2 block, `((a + b) + c + d) * 0.25`.
enum MaskResize {
    /// `outputWidth * outputHeight` values; `src` holds `width * height`.
    static func linear(_ src: [Float], width: Int, height: Int, outputWidth: Int, outputHeight: Int) -> [Float] {
        var out = [Float](repeating: 0, count: max(0, outputWidth) * max(0, outputHeight))
        guard width > 0, height > 0, outputWidth > 0, outputHeight > 0, src.count >= width * height else { return out }
        if width == 2 * outputWidth && height == 2 * outputHeight {
            for dy in 0..<outputHeight {
                for dx in 0..<outputWidth {
                    let p = 2 * dy * width + 2 * dx
                    out[dy * outputWidth + dx] = (src[p] + src[p + 1] + src[p + width] + src[p + width + 1]) * 0.25
                }
            }
            return out
        }
        let xs = positions(source: width, destination: outputWidth, clampWeights: true)
        let ys = positions(source: height, destination: outputHeight, clampWeights: false)
        let x0 = xs.map(\.index), x1 = xs.map { min($0.index + 1, width - 1) }
        let a0 = xs.map(\.weight0), a1 = xs.map(\.weight1)
        // Two rows interpolated along x; consecutive output rows mostly share them.
        var rows = [[Float]](repeating: [Float](repeating: 0, count: outputWidth), count: 2)
        var rowOf = [-1, -1]
        src.withUnsafeBufferPointer { s in
            func fill(_ k: Int, _ sy: Int) {
                if rowOf[k] == sy { return }
                if rowOf[1 - k] == sy { rows[k] = rows[1 - k]; rowOf[k] = sy; return }
                let base = sy * width
                rows[k].withUnsafeMutableBufferPointer { r in
                    for dx in 0..<outputWidth { r[dx] = s[base + x0[dx]] * a0[dx] + s[base + x1[dx]] * a1[dx] }
                }
                rowOf[k] = sy
            }
            out.withUnsafeMutableBufferPointer { o in
                for (dy, p) in ys.enumerated() {
                    fill(0, min(max(p.index, 0), height - 1))
                    fill(1, min(max(p.index + 1, 0), height - 1))
                    let b0 = p.weight0, b1 = p.weight1
                    rows[0].withUnsafeBufferPointer { r0 in
                        rows[1].withUnsafeBufferPointer { r1 in
                            for dx in 0..<outputWidth { o[dy * outputWidth + dx] = r0[dx] * b0 + r1[dx] * b1 }
                        }
                    }
                }
            }
        }
        return out
    }

    struct Position { var index: Int, weight0: Float, weight1: Float }

    /// The left (top) source index and the two weights of every destination column (row). Along x, OpenCV
    /// sets the weight to 0 and clamps the index outside the source (`clampWeights`); along y it keeps both.
    static func positions(source: Int, destination: Int, clampWeights: Bool) -> [Position] {
        // cv::resize passes dst / src; hal::resize takes its reciprocal.
        let inverseScale = Double(destination) / Double(source)
        let scale = 1 / inverseScale
        return (0..<destination).map { d in
            var f = Float((Double(d) + 0.5) * scale - 0.5)
            let floorF = f.rounded(.down)
            var s = floorF.isFinite ? Int(floorF) : 0
            f -= Float(s)
            if clampWeights {
                if s < 0 { f = 0; s = 0 }
                if s >= source - 1 { f = 0; s = source - 1 }
            }
            return Position(index: s, weight0: 1 - f, weight1: f)
        }
    }
}
