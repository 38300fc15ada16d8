/// A box blur of interleaved 8-bit pixels: each channel of each pixel the mean of the `(2 r + 1) x (2 r + 1)`
/// window around it, pixels beyond an edge repeating the edge pixel, rounded half up in integers:
/// `(sum + n / 2) / n`, `n = (2 r + 1)^2`. Separable: running sums along each row, then running sums of those
/// down the columns, each pixel a constant number of additions whatever the radius.
enum BoxBlur {
    /// `pixels` (`width * height * channels` bytes) blurred with `radius` (0 to 1000: the window sums fit in 32
    /// bits). Every channel is blurred, alpha included.
    static func blurred(_ pixels: [UInt8], width: Int, height: Int, channels: Int, radius r: Int) -> [UInt8] {
        guard r > 0 else { return pixels }
        let rowLength = width * channels
        // Row sums: rows[y][x][c] = sum over x' in x-r...x+r of pixels[y][clamp(x')][c].
        var rows = [UInt32](repeating: 0, count: height * rowLength)
        for y in 0..<height {
            let row = y * rowLength
            for c in 0..<channels {
                @inline(__always) func at(_ x: Int) -> UInt32 {
                    UInt32(pixels[row + min(max(x, 0), width - 1) * channels + c])
                }
                var sum: UInt32 = 0
                for x in -r...r { sum += at(x) }
                for x in 0..<width {
                    rows[row + x * channels + c] = sum
                    sum = sum + at(x + r + 1) - at(x - r)
                }
            }
        }
        // Column sums of the row sums, a whole row at a time.
        let n = UInt32((2 * r + 1) * (2 * r + 1)), half = n / 2
        var out = [UInt8](repeating: 0, count: pixels.count)
        var sums = [UInt32](repeating: 0, count: rowLength)
        rows.withUnsafeBufferPointer { rows in
            sums.withUnsafeMutableBufferPointer { sums in
                out.withUnsafeMutableBufferPointer { out in
                    @inline(__always) func row(_ y: Int) -> Int { min(max(y, 0), height - 1) * rowLength }
                    for y in -r...r { let s = row(y); for i in 0..<rowLength { sums[i] += rows[s + i] } }
                    for y in 0..<height {
                        let o = y * rowLength, add = row(y + r + 1), remove = row(y - r)
                        for i in 0..<rowLength {
                            out[o + i] = UInt8(truncatingIfNeeded: (sums[i] + half) / n)
                            sums[i] = sums[i] + rows[add + i] - rows[remove + i]
                        }
                    }
                }
            }
        }
        return out
    }
}
