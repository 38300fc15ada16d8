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
        let plan = Plan(width: width, height: height, outputWidth: outputWidth, outputHeight: outputHeight)
        return src.withUnsafeBufferPointer { plan.resize($0) }
    }

    /// The positions and weights of one resize, computed once for the masks of every channel.
    struct Plan {
        let width: Int, height: Int, outputWidth: Int, outputHeight: Int
        let x0: [Int], x1: [Int], a0: [Float], a1: [Float]
        let ys: [Position]

        init(width: Int, height: Int, outputWidth: Int, outputHeight: Int) {
            (self.width, self.height) = (width, height)
            (self.outputWidth, self.outputHeight) = (max(0, outputWidth), max(0, outputHeight))
            let ok = width > 0 && height > 0 && outputWidth > 0 && outputHeight > 0
            let xs = ok ? MaskResize.positions(source: width, destination: outputWidth, clampWeights: true) : []
            x0 = xs.map(\.index)
            x1 = xs.map { min($0.index + 1, width - 1) }
            a0 = xs.map(\.weight0)
            a1 = xs.map(\.weight1)
            ys = ok ? MaskResize.positions(source: height, destination: outputHeight, clampWeights: false) : []
        }

        /// `src` (`width * height` values) resized.
        func resize(_ src: UnsafeBufferPointer<Float>) -> [Float] {
            let count = outputWidth * outputHeight
            guard width > 0, height > 0, count > 0, src.count >= width * height else {
                return [Float](repeating: 0, count: count)
            }
            // Every value is written by `resize(_:into:)`.
            return [Float](unsafeUninitializedCapacity: count) { out, initialized in
                resize(src, into: out)
                initialized = count
            }
        }

        /// `src` resized into `out` (`outputWidth * outputHeight` values).
        func resize(_ src: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
            let ow = outputWidth, oh = outputHeight
            guard width > 0, height > 0, ow > 0, oh > 0, src.count >= width * height, out.count >= ow * oh,
                  let s = src.baseAddress, let o = out.baseAddress else { return }
            if width == 2 * ow && height == 2 * oh {
                for dy in 0..<oh {
                    for dx in 0..<ow {
                        let p = 2 * dy * width + 2 * dx
                        o[dy * ow + dx] = (s[p] + s[p + 1] + s[p + width] + s[p + width + 1]) * 0.25
                    }
                }
                return
            }
            // Two rows interpolated along x; consecutive output rows mostly share them.
            let rows = UnsafeMutablePointer<Float>.allocate(capacity: 2 * ow)
            defer { rows.deallocate() }
            var r = (rows, rows + ow)
            var rowOf = (-1, -1)
            x0.withUnsafeBufferPointer { x0 in x1.withUnsafeBufferPointer { x1 in
                a0.withUnsafeBufferPointer { a0 in a1.withUnsafeBufferPointer { a1 in
                    func fill(_ row: UnsafeMutablePointer<Float>, _ sy: Int) {
                        let base = s + sy * width
                        for dx in 0..<ow { row[dx] = base[x0[dx]] * a0[dx] + base[x1[dx]] * a1[dx] }
                    }
                    for (dy, p) in ys.enumerated() {
                        let sy0 = min(max(p.index, 0), height - 1), sy1 = min(max(p.index + 1, 0), height - 1)
                        if rowOf.0 != sy0 {
                            if rowOf.1 == sy0 {
                                swap(&r.0, &r.1)
                                rowOf = (rowOf.1, rowOf.0)
                            } else {
                                fill(r.0, sy0)
                                rowOf.0 = sy0
                            }
                        }
                        if rowOf.1 != sy1 {
                            if rowOf.0 == sy1 {
                                r.1.update(from: r.0, count: ow)
                            } else {
                                fill(r.1, sy1)
                            }
                            rowOf.1 = sy1
                        }
                        let b0 = p.weight0, b1 = p.weight1
                        let line = o + dy * ow, r0 = r.0, r1 = r.1
                        for dx in 0..<ow { line[dx] = r0[dx] * b0 + r1[dx] * b1 }
                    }
                }}
            }}
        }
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
