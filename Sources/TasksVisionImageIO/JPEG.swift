import Foundation

/// Baseline and extended-sequential JPEG decoding (Huffman, 8-bit), gray or YCbCr
/// with any chroma subsampling, restart markers and the EXIF orientation tag.
/// Progressive and arithmetic-coded files are refused with a clear error.
public enum JPEG {
    public static func isJPEG(_ bytes: [UInt8]) -> Bool { bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF }

    struct Component {
        var id: Int, h: Int, v: Int, tq: Int
        var td = 0, ta = 0
        var blocksW = 0, blocksH = 0
        var plane: [UInt8] = []
        var pred = 0
    }

    struct HuffmanTable {
        var lookup: [Int: (length: Int, symbol: UInt8)] = [:]  // key: length << 16 | code
        init() {}
        init(counts: [Int], symbols: [UInt8]) {
            var code = 0, k = 0
            for len in 1...16 {
                for _ in 0..<counts[len - 1] {
                    if k < symbols.count { lookup[len << 16 | code] = (len, symbols[k]) }
                    code += 1; k += 1
                }
                code <<= 1
            }
        }
    }

    static let zigzag: [Int] = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
                                28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63]

    static let idctTable: [Float] = {
        var t = [Float](repeating: 0, count: 64)
        for x in 0..<8 { for u in 0..<8 {
            let cu: Double = u == 0 ? 1 / 2.0.squareRoot() : 1
            t[x * 8 + u] = Float(cu * cos(Double(2 * x + 1) * Double(u) * Double.pi / 16) / 2)
        } }
        return t
    }()

    public static func decode(_ bytes: [UInt8], name: String) throws -> DecodedImage {
        func bad(_ r: String) -> ImageIOError { .malformed(file: name, reason: r) }
        guard isJPEG(bytes) else { throw bad("missing JPEG start-of-image marker") }
        var p = 2
        var quant = [[Int]](repeating: [Int](repeating: 1, count: 64), count: 4)
        var dc = [HuffmanTable](repeating: HuffmanTable(), count: 4), ac = [HuffmanTable](repeating: HuffmanTable(), count: 4)
        var components: [Component] = []
        var width = 0, height = 0, restart = 0
        var orientation: Int? = nil
        var decodedAny = false
        func u16(_ i: Int) throws -> Int {
            guard i + 1 < bytes.count else { throw bad("segment runs past the end") }
            return Int(bytes[i]) << 8 | Int(bytes[i + 1])
        }
        while p + 4 <= bytes.count {
            guard bytes[p] == 0xFF else { throw bad("expected a marker at \(p)") }
            let marker = bytes[p + 1]
            if marker == 0xFF { p += 1; continue }
            if marker == 0xD9 { break }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) { p += 2; continue }
            let length = try u16(p + 2)
            guard length >= 2, p + 2 + length <= bytes.count else { throw bad("segment 0x\(String(marker, radix: 16)) runs past the end") }
            let seg = Array(bytes[(p + 4)..<(p + 2 + length)])
            switch marker {
            case 0xC0, 0xC1:
                guard seg.count >= 6, seg[0] == 8 else { throw ImageIOError.unsupported(file: name, reason: "only 8-bit JPEG is supported") }
                height = Int(seg[1]) << 8 | Int(seg[2]); width = Int(seg[3]) << 8 | Int(seg[4])
                let n = Int(seg[5])
                guard n == 1 || n == 3, seg.count >= 6 + 3 * n else { throw ImageIOError.unsupported(file: name, reason: "\(n) color components") }
                guard width > 0, height > 0, width * height <= maximumPixelCount else { throw ImageIOError.unsupported(file: name, reason: "size \(width)x\(height)") }
                components = (0..<n).map { i in
                    Component(id: Int(seg[6 + 3 * i]), h: max(1, Int(seg[7 + 3 * i] >> 4)), v: max(1, Int(seg[7 + 3 * i] & 15)), tq: Int(seg[8 + 3 * i] & 3))
                }
                guard components.allSatisfy({ $0.h <= 4 && $0.v <= 4 }) else { throw bad("sampling factors") }
                // Each component must cover the image a whole number of times (libjpeg's usual
                // cases: 4:4:4, 4:2:2, 4:2:0, 4:1:1); other ratios would leave planes short.
                let hmax = components.map(\.h).max() ?? 1, vmax = components.map(\.v).max() ?? 1
                guard components.allSatisfy({ hmax % $0.h == 0 && vmax % $0.v == 0 }) else {
                    throw ImageIOError.unsupported(file: name, reason: "sampling factors \(components.map { "\($0.h)x\($0.v)" }.joined(separator: ", "))")
                }
            case 0xC2, 0xC6, 0xCA:
                throw ImageIOError.unsupported(file: name, reason: "progressive JPEG is not supported (baseline only)")
            case 0xC3, 0xC5, 0xC7, 0xC9, 0xCB, 0xCD, 0xCE, 0xCF:
                throw ImageIOError.unsupported(file: name, reason: "lossless, hierarchical or arithmetic-coded JPEG is not supported")
            case 0xC4:
                var q = 0
                while q + 17 <= seg.count {
                    let tc = Int(seg[q] >> 4), th = Int(seg[q] & 15)
                    let counts = (0..<16).map { Int(seg[q + 1 + $0]) }
                    let total = counts.reduce(0, +)
                    guard th < 4, q + 17 + total <= seg.count else { throw bad("Huffman table") }
                    let table = HuffmanTable(counts: counts, symbols: Array(seg[(q + 17)..<(q + 17 + total)]))
                    if tc == 0 { dc[th] = table } else { ac[th] = table }
                    q += 17 + total
                }
            case 0xDB:
                var q = 0
                while q < seg.count {
                    let pq = Int(seg[q] >> 4), tq = Int(seg[q] & 3)
                    let size = pq == 0 ? 64 : 128
                    guard q + 1 + size <= seg.count else { throw bad("quantization table") }
                    for i in 0..<64 { quant[tq][zigzag[i]] = pq == 0 ? Int(seg[q + 1 + i]) : Int(seg[q + 1 + 2 * i]) << 8 | Int(seg[q + 2 + 2 * i]) }
                    q += 1 + size
                }
            case 0xDD:
                restart = try u16(p + 4)
            case 0xE1:
                orientation = orientation ?? exifOrientation(seg)
            case 0xDA:
                guard !components.isEmpty else { throw bad("scan before frame header") }
                let n = Int(seg.first ?? 0)
                guard n >= 1, seg.count >= 1 + 2 * n else { throw bad("scan header") }
                var scan: [Int] = []
                for i in 0..<n {
                    guard let ci = components.firstIndex(where: { $0.id == Int(seg[1 + 2 * i]) }) else { throw bad("scan names an unknown component") }
                    components[ci].td = Int(seg[2 + 2 * i] >> 4) & 3
                    components[ci].ta = Int(seg[2 + 2 * i] & 15) & 3
                    scan.append(ci)
                }
                p = try decodeScan(bytes, start: p + 2 + length, components: &components, scan: scan, width: width, height: height,
                                   quant: quant, dc: dc, ac: ac, restart: restart, name: name)
                decodedAny = true
                continue
            default:
                break
            }
            p += 2 + length
        }
        guard decodedAny else { throw bad("no image data") }
        // Every component needs a plane covering the image: a scan may have left one out, or a
        // later frame header may have replaced the components after the scans.
        let hmax = components.map(\.h).max() ?? 1, vmax = components.map(\.v).max() ?? 1
        for c in components {
            let cw = (width * c.h + hmax - 1) / hmax, ch = (height * c.v + vmax - 1) / vmax
            guard !c.plane.isEmpty, c.plane.count == c.blocksW * c.blocksH * 64, c.blocksW * 8 >= cw, c.blocksH * 8 >= ch else {
                throw bad("component \(c.id) has no image data for the \(width)x\(height) frame")
            }
        }
        return try assemble(components, width: width, height: height, orientation: orientation)
    }

    static func exifOrientation(_ seg: [UInt8]) -> Int? {
        guard seg.count > 14, Array(seg[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] else { return nil }
        let t = Array(seg[6...])
        guard t.count >= 8 else { return nil }
        let little = t[0] == 0x49
        func r16(_ i: Int) -> Int? { i + 1 < t.count ? (little ? Int(t[i]) | Int(t[i + 1]) << 8 : Int(t[i]) << 8 | Int(t[i + 1])) : nil }
        func r32(_ i: Int) -> Int? {
            guard i + 3 < t.count else { return nil }
            let b = (0..<4).map { Int(t[i + $0]) }
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
        }
        guard let ifd = r32(4), let count = r16(ifd) else { return nil }
        for e in 0..<count {
            let entry = ifd + 2 + 12 * e
            if r16(entry) == 0x0112, let v = r16(entry + 8), (1...8).contains(v) { return v }
        }
        return nil
    }

    /// Decodes one scan's entropy-coded data; returns the position after it.
    static func decodeScan(_ bytes: [UInt8], start: Int, components: inout [Component], scan: [Int], width: Int, height: Int,
                           quant: [[Int]], dc: [HuffmanTable], ac: [HuffmanTable], restart: Int, name: String) throws -> Int {
        func bad(_ r: String) -> ImageIOError { .malformed(file: name, reason: r) }
        let hmax = components.map(\.h).max() ?? 1, vmax = components.map(\.v).max() ?? 1
        let mcusX = (width + 8 * hmax - 1) / (8 * hmax), mcusY = (height + 8 * vmax - 1) / (8 * vmax)
        for i in components.indices where components[i].plane.isEmpty {
            components[i].blocksW = mcusX * components[i].h
            components[i].blocksH = mcusY * components[i].v
            components[i].plane = [UInt8](repeating: 0, count: components[i].blocksW * components[i].blocksH * 64)
        }
        var p = start
        var bitBuffer = 0, bitCount = 0
        var hitMarker = false
        func bit() throws -> Int {
            if bitCount == 0 {
                if hitMarker || p >= bytes.count { bitBuffer = 0; bitCount = 8 } else {
                    let b = bytes[p]
                    if b == 0xFF {
                        let next = p + 1 < bytes.count ? bytes[p + 1] : 0xD9
                        if next == 0 { p += 2 } else { hitMarker = true; bitBuffer = 0; bitCount = 8; bitCount -= 1; return 0 }
                    } else { p += 1 }
                    bitBuffer = Int(b); bitCount = 8
                }
            }
            bitCount -= 1
            return (bitBuffer >> bitCount) & 1
        }
        func receive(_ n: Int) throws -> Int { var v = 0; for _ in 0..<n { v = v << 1 | (try bit()) }; return v }
        func extend(_ v: Int, _ n: Int) -> Int { n == 0 ? 0 : (v < 1 << (n - 1) ? v - (1 << n) + 1 : v) }
        func decodeSymbol(_ t: HuffmanTable) throws -> Int {
            var code = 0
            for len in 1...16 {
                code = code << 1 | (try bit())
                if let e = t.lookup[len << 16 | code] { return Int(e.symbol) }
            }
            throw bad("invalid Huffman code")
        }
        var coefficients = [Int](repeating: 0, count: 64)
        var block = [Float](repeating: 0, count: 64)
        var tmp = [Float](repeating: 0, count: 64)
        func decodeBlock(_ ci: Int, bx: Int, by: Int) throws {
            for i in 0..<64 { coefficients[i] = 0 }
            // Copy out the scalars only: holding the whole Component would keep a second reference
            // to its plane and make every write below copy the plane (quadratic in image size).
            let td = components[ci].td, ta = components[ci].ta, tq = components[ci].tq, stride = components[ci].blocksW * 8
            let s = try decodeSymbol(dc[td])
            guard s <= 16 else { throw bad("DC magnitude") }
            components[ci].pred += extend(try receive(s), s)
            coefficients[0] = components[ci].pred * quant[tq][0]
            var k = 1
            while k < 64 {
                let rs = try decodeSymbol(ac[ta])
                let r = rs >> 4, sz = rs & 15
                if sz == 0 { if r == 15 { k += 16; continue }; break }
                k += r
                guard k < 64 else { throw bad("AC coefficient index") }
                coefficients[zigzag[k]] = extend(try receive(sz), sz) * quant[tq][zigzag[k]]
                k += 1
            }
            // Separable inverse DCT.
            idctTable.withUnsafeBufferPointer { t in
                for y in 0..<8 { for x in 0..<8 {
                    var s: Float = 0
                    for u in 0..<8 { s += t[x * 8 + u] * Float(coefficients[y * 8 + u]) }
                    tmp[y * 8 + x] = s
                } }
                for x in 0..<8 { for y in 0..<8 {
                    var s: Float = 0
                    for v in 0..<8 { s += t[y * 8 + v] * tmp[v * 8 + x] }
                    block[y * 8 + x] = s
                } }
            }
            components[ci].plane.withUnsafeMutableBufferPointer { plane in
                for y in 0..<8 { for x in 0..<8 {
                    let v = Int((block[y * 8 + x] + 128).rounded())
                    let o = (by * 8 + y) * stride + bx * 8 + x
                    if o < plane.count { plane[o] = UInt8(max(0, min(255, v))) }
                } }
            }
        }
        let single = scan.count == 1
        let units: Int
        if single {
            // Scalars only, never a Component copy, while its plane is written (see decodeBlock).
            let h = components[scan[0]].h, v = components[scan[0]].v
            let bw = (((width * h) + hmax - 1) / hmax + 7) / 8, bh = (((height * v) + vmax - 1) / vmax + 7) / 8
            units = bw * bh
            var n = 0
            for by in 0..<bh { for bx in 0..<bw {
                try handleRestart(&n)
                try decodeBlock(scan[0], bx: bx, by: by)
            } }
        } else {
            units = mcusX * mcusY
            var n = 0
            for my in 0..<mcusY { for mx in 0..<mcusX {
                try handleRestart(&n)
                for ci in scan {
                    let ch = components[ci].h, cv = components[ci].v
                    for v in 0..<cv { for h in 0..<ch { try decodeBlock(ci, bx: mx * ch + h, by: my * cv + v) } }
                }
            } }
        }
        _ = units
        func handleRestart(_ n: inout Int) throws {
            if restart > 0 && n > 0 && n % restart == 0 {
                // Align to the next marker, expect RSTn.
                bitCount = 0
                hitMarker = false
                while p + 1 < bytes.count && !(bytes[p] == 0xFF && (0xD0...0xD7).contains(bytes[p + 1])) { p += 1 }
                if p + 1 < bytes.count { p += 2 }
                for i in components.indices { components[i].pred = 0 }
            }
            n += 1
        }
        // Skip to the next marker.
        while p + 1 < bytes.count && !(bytes[p] == 0xFF && bytes[p + 1] != 0 && !(0xD0...0xD7).contains(bytes[p + 1])) { p += 1 }
        return p
    }

    /// libjpeg's "fancy" (triangle-filter) upsampling of a chroma plane by 2 in x, and by 2 in y when `vertical`.
    static func fancyUpsample(_ c: Component, width cw: Int, height ch: Int, vertical: Bool) -> (plane: [UInt8], stride: Int) {
        let stride = c.blocksW * 8
        func at(_ x: Int, _ y: Int) -> Int { Int(c.plane[min(max(y, 0), ch - 1) * stride + min(max(x, 0), cw - 1)]) }
        let ow = cw * 2, oh = vertical ? ch * 2 : ch
        var out = [UInt8](repeating: 0, count: ow * oh)
        for oy in 0..<oh {
            let y = vertical ? oy / 2 : oy
            let neighbour = vertical ? (oy % 2 == 0 ? y - 1 : y + 1) : y
            func colsum(_ x: Int) -> Int { vertical ? at(x, y) * 3 + at(x, neighbour) : at(x, y) }
            for x in 0..<cw {
                let this = colsum(x), last = x > 0 ? colsum(x - 1) : this, next = x < cw - 1 ? colsum(x + 1) : this
                let o = oy * ow + 2 * x
                if vertical {
                    out[o] = UInt8(clamping: x == 0 ? (this * 4 + 8) >> 4 : (this * 3 + last + 8) >> 4)
                    out[o + 1] = UInt8(clamping: x == cw - 1 ? (this * 4 + 7) >> 4 : (this * 3 + next + 7) >> 4)
                } else {
                    out[o] = UInt8(clamping: x == 0 ? this : (this * 3 + last + 1) >> 2)
                    out[o + 1] = UInt8(clamping: x == cw - 1 ? this : (this * 3 + next + 2) >> 2)
                }
            }
        }
        return (out, ow)
    }

    static func assemble(_ components: [Component], width: Int, height: Int, orientation: Int?) throws -> DecodedImage {
        let hmax = components.map(\.h).max() ?? 1, vmax = components.map(\.v).max() ?? 1
        // Each component as a full-resolution plane (fancy upsampling for 2x1 and 2x2 chroma).
        let planes: [(plane: [UInt8], stride: Int, fx: Int, fy: Int)] = components.map { c in
            let fx = hmax / c.h, fy = vmax / c.v
            let cw = (width * c.h + hmax - 1) / hmax, ch = (height * c.v + vmax - 1) / vmax
            if fx == 2 && (fy == 1 || fy == 2) && cw > 0 && ch > 0 {
                let up = fancyUpsample(c, width: cw, height: ch, vertical: fy == 2)
                return (up.plane, up.stride, 1, 1)
            }
            return (c.plane, c.blocksW * 8, fx, fy)
        }
        func sample(_ i: Int, _ x: Int, _ y: Int) -> Int {
            let p = planes[i]
            let k = (y / p.fy) * p.stride + x / p.fx
            return k < p.plane.count ? Int(p.plane[k]) : 0
        }
        if components.count == 1 {
            var out = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height { for x in 0..<width { out[y * width + x] = UInt8(sample(0, x, y)) } }
            return DecodedImage(width: width, height: height, channels: 1, pixels: out, exifOrientation: orientation)
        }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height { for x in 0..<width {
            let Y = Float(sample(0, x, y)), cb = Float(sample(1, x, y)) - 128, cr = Float(sample(2, x, y)) - 128
            let o = (y * width + x) * 3
            out[o] = UInt8(max(0, min(255, (Y + 1.402 * cr).rounded())))
            out[o + 1] = UInt8(max(0, min(255, (Y - 0.344136 * cb - 0.714136 * cr).rounded())))
            out[o + 2] = UInt8(max(0, min(255, (Y + 1.772 * cb).rounded())))
        } }
        return DecodedImage(width: width, height: height, channels: 3, pixels: out, exifOrientation: orientation)
    }
}
