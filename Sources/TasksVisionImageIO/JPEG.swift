import Foundation

/// JPEG decoding (Huffman-coded, 8-bit): baseline, extended sequential and progressive;
/// gray, YCbCr, RGB (Adobe/ID-tagged) or CMYK/YCCK; any chroma subsampling whose factors
/// divide the largest; restart markers; the EXIF orientation tag.
///
/// The pixels are those MediaPipe decodes the same file to: MediaPipe's
/// `Image.create_from_file` uses stb_image, so the reconstruction follows its arithmetic
/// (the integer islow IDCT with 12-bit constants, 16-bit coefficient storage, triangle
/// "fancy" chroma upsampling with its rounding, and 20-bit fixed-point YCbCr to RGB).
/// Arithmetic-coded, lossless and hierarchical files are refused with a clear error. A file cut short is
/// decoded as libjpeg decodes it, what is there and the rest gray, with a warning in `DecodedImage.warnings`
/// (stb_image's own output there is no picture: zero bits decoded on, or a blank progressive image).
public enum JPEG {
    public static func isJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }

    struct Component {
        var id: Int, h: Int, v: Int, tq: Int
        var td = 0, ta = 0
        /// Blocks per row and column, MCU-padded.
        var blocksW = 0, blocksH = 0
        /// Samples covering the image (the unpadded component size).
        var width = 0, height = 0
        /// 64 coefficients per block, in natural order, as 16-bit values (stb's `short`).
        var coefficients: [Int16] = []
    }

    /// A Huffman table: a 9-bit lookup for short codes, canonical decoding for the rest.
    struct HuffmanTable {
        static let fastBits = 9
        var fast = [UInt16](repeating: 0xFFFF, count: 1 << fastBits)  // (length << 8 | symbol)
        var maxCode = [Int](repeating: -1, count: 18)
        var valueOffset = [Int](repeating: 0, count: 18)
        var symbols: [UInt8] = []
        var defined = false

        init() {}
        /// Nil when the code lengths overflow (more codes of a length than it has bit patterns).
        init?(counts: [Int], symbols: [UInt8]) {
            self.symbols = symbols
            defined = true
            var code = 0, k = 0
            for len in 1...16 {
                valueOffset[len] = k - code
                guard code + counts[len - 1] <= 1 << len else { return nil }
                for _ in 0..<counts[len - 1] {
                    if len <= Self.fastBits && k < symbols.count {
                        let shift = Self.fastBits - len
                        for fill in 0..<(1 << shift) {
                            fast[(code << shift) | fill] = UInt16(len << 8) | UInt16(symbols[k])
                        }
                    }
                    code += 1; k += 1
                }
                maxCode[len] = counts[len - 1] > 0 ? code - 1 : -1
                code <<= 1
            }
        }
    }

    /// stb_image's de-zigzag table, padded with 15 entries of 63 so that a corrupt run past
    /// the end of a block lands on the last coefficient (as stb does) instead of failing.
    static let dezigzag: [Int] = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41,
                                  34, 27, 20, 13, 6, 7, 14, 21,
                                  28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45,
                                  38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63]
        + [Int](repeating: 63, count: 15)

    /// Frame-wide state while decoding.
    struct Frame {
        var components: [Component] = []
        var width = 0, height = 0
        var progressive = false
        var hmax = 1, vmax = 1
        var mcusX = 0, mcusY = 0
        var quant = [[Int]](repeating: [Int](repeating: 1, count: 64), count: 4)
        var dc = [HuffmanTable](repeating: HuffmanTable(), count: 4)
        var ac = [HuffmanTable](repeating: HuffmanTable(), count: 4)
        var restartInterval = 0
        var jfif = false
        var adobeTransform: Int? = nil
    }

    public static func decode(_ bytes: [UInt8], name: String) throws -> DecodedImage {
        func bad(_ r: String) -> ImageIOError { .malformed(file: name, reason: r) }
        guard isJPEG(bytes) else { throw bad("missing JPEG start-of-image marker") }
        var f = Frame()
        var p = 2
        var orientation: Int? = nil
        var decodedAny = false
        var truncated = false, sawEnd = false
        func u16(_ i: Int) throws -> Int {
            guard i + 1 < bytes.count else { throw bad("segment runs past the end") }
            return Int(bytes[i]) << 8 | Int(bytes[i + 1])
        }
        while p + 4 <= bytes.count {
            guard bytes[p] == 0xFF else { throw bad("expected a marker at \(p)") }
            let marker = bytes[p + 1]
            if marker == 0xFF { p += 1; continue }
            if marker == 0xD9 { sawEnd = true; break }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) { p += 2; continue }
            let length = try u16(p + 2)
            guard length >= 2, p + 2 + length <= bytes.count else {
                throw bad("segment 0x\(String(marker, radix: 16)) runs past the end")
            }
            let seg = Array(bytes[(p + 4)..<(p + 2 + length)])
            switch marker {
            case 0xC0, 0xC1, 0xC2:
                guard !decodedAny else { throw bad("a second frame header after image data") }
                try readFrameHeader(seg, progressive: marker == 0xC2, fileSize: bytes.count, into: &f, name: name)
            case 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
                throw ImageIOError.unsupported(file: name,
                    reason: "lossless, hierarchical or arithmetic-coded JPEG is not supported")
            case 0xC4:
                var q = 0
                while q + 17 <= seg.count {
                    let tc = Int(seg[q] >> 4), th = Int(seg[q] & 15)
                    let counts = (0..<16).map { Int(seg[q + 1 + $0]) }
                    let total = counts.reduce(0, +)
                    guard tc <= 1, th < 4, total <= 256, q + 17 + total <= seg.count else { throw bad("Huffman table") }
                    guard let table = HuffmanTable(counts: counts,
                                                   symbols: Array(seg[(q + 17)..<(q + 17 + total)])) else {
                        throw bad("Huffman table with more codes than its code lengths allow")
                    }
                    if tc == 0 { f.dc[th] = table } else { f.ac[th] = table }
                    q += 17 + total
                }
            case 0xDB:
                var q = 0
                while q < seg.count {
                    let pq = Int(seg[q] >> 4), tq = Int(seg[q] & 15)
                    guard pq <= 1, tq < 4 else { throw bad("quantization table") }
                    let size = pq == 0 ? 64 : 128
                    guard q + 1 + size <= seg.count else { throw bad("quantization table") }
                    for i in 0..<64 {
                        f.quant[tq][dezigzag[i]] = pq == 0
                            ? Int(seg[q + 1 + i]) : Int(seg[q + 1 + 2 * i]) << 8 | Int(seg[q + 2 + 2 * i])
                    }
                    q += 1 + size
                }
            case 0xDD:
                f.restartInterval = try u16(p + 4)
            case 0xE0:
                if seg.count >= 5 && Array(seg[0..<5]) == [0x4A, 0x46, 0x49, 0x46, 0] { f.jfif = true }
            case 0xE1:
                orientation = orientation ?? exifOrientation(seg)
            case 0xEE:
                if seg.count >= 12 && Array(seg[0..<5]) == [0x41, 0x64, 0x6F, 0x62, 0x65] {
                    f.adobeTransform = Int(seg[11])
                }
            case 0xDA:
                guard !f.components.isEmpty else { throw bad("scan before frame header") }
                p = try decodeScan(bytes, header: seg, start: p + 2 + length, frame: &f, name: name,
                                   truncated: &truncated)
                decodedAny = true
                continue
            default:
                break
            }
            p += 2 + length
        }
        guard decodedAny else { throw bad("no image data") }
        // The loop stops four bytes before the end: an EOI in the last two is the file's proper end.
        if !sawEnd, p + 2 <= bytes.count, bytes[p] == 0xFF, bytes[p + 1] == 0xD9 { sawEnd = true }
        var image = reconstruct(f, orientation: orientation)
        if truncated || !sawEnd {
            // Decoded as libjpeg decodes it: what is there, the rest of the image gray. (MediaPipe's stb_image reads
            // zero bits on, stops at a missing restart marker, and leaves a progressive file blank.)
            image.warnings.append("\(name): the file is truncated (it ends at byte \(bytes.count) before the image "
                                  + "data is complete); the rest of the image is gray, as libjpeg decodes it")
        }
        return image
    }

    static func readFrameHeader(_ seg: [UInt8], progressive: Bool, fileSize: Int, into f: inout Frame,
                                name: String) throws {
        func bad(_ r: String) -> ImageIOError { .malformed(file: name, reason: r) }
        guard seg.count >= 6, seg[0] == 8 else {
            throw ImageIOError.unsupported(file: name, reason: "only 8-bit JPEG is supported")
        }
        f.height = Int(seg[1]) << 8 | Int(seg[2]); f.width = Int(seg[3]) << 8 | Int(seg[4])
        let n = Int(seg[5])
        guard n == 1 || n == 3 || n == 4, seg.count >= 6 + 3 * n else {
            throw ImageIOError.unsupported(file: name, reason: "\(n) color components")
        }
        guard f.width > 0, f.height > 0, f.width * f.height <= maximumPixelCount else {
            throw ImageIOError.unsupported(file: name, reason: "size \(f.width)x\(f.height)")
        }
        f.progressive = progressive
        f.components = (0..<n).map { i in
            Component(id: Int(seg[6 + 3 * i]), h: Int(seg[7 + 3 * i] >> 4), v: Int(seg[7 + 3 * i] & 15),
                      tq: Int(seg[8 + 3 * i]))
        }
        guard f.components.allSatisfy({ (1...4).contains($0.h) && (1...4).contains($0.v) && $0.tq < 4 }) else {
            throw bad("sampling factors or table index")
        }
        f.hmax = f.components.map(\.h).max() ?? 1
        f.vmax = f.components.map(\.v).max() ?? 1
        // Each component must cover the image a whole number of times (4:4:4, 4:2:2, 4:2:0,
        // 4:1:1, ...); stb_image rejects other ratios as corrupt too.
        guard f.components.allSatisfy({ f.hmax % $0.h == 0 && f.vmax % $0.v == 0 }) else {
            throw ImageIOError.unsupported(file: name,
                reason: "sampling factors \(f.components.map { "\($0.h)x\($0.v)" }.joined(separator: ", "))")
        }
        // Every block costs at least one bit of entropy-coded data (its DC code), so a header
        // claiming more blocks than the file has bits is refused before anything is allocated.
        let blocks = f.components.reduce(0) { total, c in
            total + ((f.width * c.h + f.hmax - 1) / f.hmax + 7) / 8 * (((f.height * c.v + f.vmax - 1) / f.vmax + 7) / 8)
        }
        guard blocks <= 8 * fileSize else {
            throw bad("a \(f.width)x\(f.height) frame of \(blocks) blocks in a file of \(fileSize) bytes")
        }
        f.mcusX = (f.width + 8 * f.hmax - 1) / (8 * f.hmax)
        f.mcusY = (f.height + 8 * f.vmax - 1) / (8 * f.vmax)
        for i in f.components.indices {
            let c = f.components[i]
            f.components[i].width = (f.width * c.h + f.hmax - 1) / f.hmax
            f.components[i].height = (f.height * c.v + f.vmax - 1) / f.vmax
            f.components[i].blocksW = f.mcusX * c.h
            f.components[i].blocksH = f.mcusY * c.v
            f.components[i].coefficients = [Int16](repeating: 0,
                                                   count: f.components[i].blocksW * f.components[i].blocksH * 64)
        }
    }

    static func exifOrientation(_ seg: [UInt8]) -> Int? {
        guard seg.count > 14, Array(seg[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] else { return nil }
        let t = Array(seg[6...])
        guard t.count >= 8 else { return nil }
        let little = t[0] == 0x49
        func r16(_ i: Int) -> Int? {
            i >= 0 && i + 1 < t.count ? (little ? Int(t[i]) | Int(t[i + 1]) << 8 : Int(t[i]) << 8 | Int(t[i + 1])) : nil
        }
        func r32(_ i: Int) -> Int? {
            guard i >= 0, i + 3 < t.count else { return nil }
            let b = (0..<4).map { Int(t[i + $0]) }
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
        }
        guard let ifd = r32(4), let count = r16(ifd) else { return nil }
        for e in 0..<count {
            let entry = ifd + 2 + 12 * e
            guard entry + 12 <= t.count else { return nil }
            if r16(entry) == 0x0112, let v = r16(entry + 8), (1...8).contains(v) { return v }
        }
        return nil
    }

    /// Reads entropy-coded bits; past a marker (or the end) it feeds zeros, as decoders do.
    struct BitReader {
        let bytes: [UInt8]
        var p: Int
        var buffer: UInt64 = 0
        var count = 0
        var atMarker = false
        /// Zero bytes fed because the file ended (not at a marker): bits beyond the data.
        var zerosPastEnd = 0

        /// Whether bits past the end of the file were taken (the data is cut short): more of the zeros fed there
        /// than are still unread in the buffer.
        var ranPastEnd: Bool { zerosPastEnd * 8 > count }

        init(_ bytes: [UInt8], at p: Int) { self.bytes = bytes; self.p = p }

        @inline(__always) mutating func fill() {
            while count <= 56 {
                var b: UInt8 = 0
                if !atMarker && p < bytes.count {
                    b = bytes[p]
                    if b == 0xFF {
                        if p + 1 >= bytes.count { zerosPastEnd += 1 }
                        let next = p + 1 < bytes.count ? bytes[p + 1] : 0xD9
                        if next == 0 { p += 2 } else { atMarker = true; b = 0 }
                    } else {
                        p += 1
                    }
                } else if !atMarker {
                    zerosPastEnd += 1
                }
                buffer |= UInt64(b) << (56 - count)
                count += 8
            }
        }
        @inline(__always) mutating func bits(_ n: Int) -> Int {
            if n == 0 { return 0 }
            if count < n { fill() }
            let v = Int(buffer >> (64 - n))
            buffer <<= n
            count -= n
            return v
        }
        @inline(__always) mutating func bit() -> Int { bits(1) }
        /// A magnitude category `s` read and sign-extended (JPEG's EXTEND).
        @inline(__always) mutating func receiveExtend(_ s: Int) -> Int {
            if s == 0 { return 0 }
            let v = bits(s)
            return v < 1 << (s - 1) ? v - (1 << s) + 1 : v
        }
        mutating func decode(_ t: HuffmanTable) -> Int? {
            if count < 16 { fill() }
            let look = Int(buffer >> (64 - HuffmanTable.fastBits))
            let e = t.fast[look]
            if e != 0xFFFF {
                let len = Int(e >> 8)
                buffer <<= len; count -= len
                return Int(e & 0xFF)
            }
            for len in (HuffmanTable.fastBits + 1)...16 {
                let code = Int(buffer >> (64 - len))
                if code <= t.maxCode[len] {
                    let k = code + t.valueOffset[len]
                    guard k >= 0, k < t.symbols.count else { return nil }
                    buffer <<= len; count -= len
                    return Int(t.symbols[k])
                }
            }
            return nil
        }
        /// After a restart interval: drop the buffered bits and skip the RSTn marker there.
        /// Returns false when the next marker is not a restart (the scan's data ends).
        mutating func restart() -> Bool {
            buffer = 0; count = 0; atMarker = false
            while p + 2 < bytes.count && bytes[p] == 0xFF && bytes[p + 1] == 0xFF { p += 1 }
            guard p + 1 < bytes.count, bytes[p] == 0xFF, (0xD0...0xD7).contains(bytes[p + 1]) else {
                atMarker = true; return false
            }
            p += 2
            return true
        }
    }

    /// Decodes one scan into the components' coefficients; returns the position after it.
    static func decodeScan(_ bytes: [UInt8], header seg: [UInt8], start: Int, frame f: inout Frame,
                           name: String, truncated: inout Bool) throws -> Int {
        func bad(_ r: String) -> ImageIOError { .malformed(file: name, reason: r) }
        let n = Int(seg.first ?? 0)
        guard (1...4).contains(n), seg.count >= 4 + 2 * n else { throw bad("scan header") }
        var scan: [Int] = []
        for i in 0..<n {
            guard let ci = f.components.firstIndex(where: { $0.id == Int(seg[1 + 2 * i]) }) else {
                throw bad("scan names an unknown component")
            }
            f.components[ci].td = Int(seg[2 + 2 * i] >> 4)
            f.components[ci].ta = Int(seg[2 + 2 * i] & 15)
            guard f.components[ci].td < 4, f.components[ci].ta < 4 else { throw bad("scan table index") }
            scan.append(ci)
        }
        let ss = Int(seg[1 + 2 * n]), se = Int(seg[2 + 2 * n])
        let ah = Int(seg[3 + 2 * n] >> 4), al = Int(seg[3 + 2 * n] & 15)
        if f.progressive {
            guard ss <= 63, se <= 63, ss <= se, ah <= 13, al <= 13 else { throw bad("progressive scan parameters") }
            guard (ss == 0) == (se == 0) else { throw bad("a progressive scan mixes DC and AC coefficients") }
            guard ss == 0 || n == 1 else { throw bad("an AC scan with \(n) components") }
        }
        for ci in scan {
            let c = f.components[ci]
            let needDC = !f.progressive || (ss == 0 && ah == 0)
            let needAC = !f.progressive || ss > 0
            if needDC && !f.dc[c.td].defined { throw bad("scan uses undefined DC Huffman table \(c.td)") }
            if needAC && !f.ac[c.ta].defined { throw bad("scan uses undefined AC Huffman table \(c.ta)") }
        }
        // The coefficients are taken out of the frame while the scan writes them (one owner,
        // no copy) and put back at the end, whether the scan finishes or fails.
        var coefs = f.components.map(\.coefficients)
        for i in f.components.indices { f.components[i].coefficients = [] }
        defer { for i in f.components.indices { f.components[i].coefficients = coefs[i] } }
        let comps = f.components, quant = f.quant, dcTables = f.dc, acTables = f.ac, progressive = f.progressive
        var dcPred = [Int](repeating: 0, count: comps.count)
        var reader = BitReader(bytes, at: start)
        var eobRun = 0
        var todo = f.restartInterval > 0 ? f.restartInterval : Int.max

        // An AC symbol: zero run (high nibble) and magnitude size (low nibble).
        func runAndSize(_ ta: Int) throws -> (run: Int, size: Int) {
            guard let rs = reader.decode(acTables[ta]) else { throw bad("invalid AC code") }
            return (rs >> 4, rs & 15)
        }
        // The blocks after this one that an end-of-band code with run `r` also ends.
        func bandRun(_ r: Int) -> Int { (1 << r) - 1 + (r > 0 ? reader.bits(r) : 0) }

        // One block of one component, at block (bx, by) of its coefficient grid.
        func block(_ ci: Int, _ bx: Int, _ by: Int) throws {
            let base = (by * comps[ci].blocksW + bx) * 64
            let td = comps[ci].td, ta = comps[ci].ta, tq = comps[ci].tq
            try coefs[ci].withUnsafeMutableBufferPointer { all in
                let data = UnsafeMutableBufferPointer(rebasing: all[base..<(base + 64)])
                if !progressive {
                    // Baseline: coefficients dequantized as they are read, stored as 16 bits.
                    guard let t = reader.decode(dcTables[td]), t <= 15 else { throw bad("invalid DC code") }
                    let dc = dcPred[ci] &+ reader.receiveExtend(t)
                    dcPred[ci] = dc
                    data[0] = Int16(truncatingIfNeeded: dc &* quant[tq][0])
                    var k = 1
                    repeat {
                        guard let rs = reader.decode(acTables[ta]) else { throw bad("invalid AC code") }
                        let s = rs & 15, r = rs >> 4
                        if s == 0 {
                            if rs != 0xF0 { break }
                            k += 16
                        } else {
                            k += r
                            let zig = dezigzag[min(k, 78)]
                            k += 1
                            data[zig] = Int16(truncatingIfNeeded: reader.receiveExtend(s) &* quant[tq][zig])
                        }
                    } while k < 64
                    return
                }
                if ss == 0 {
                    // Progressive DC: first pass or one refinement bit.
                    if ah == 0 {
                        guard let t = reader.decode(dcTables[td]), t <= 15 else { throw bad("invalid DC code") }
                        let dc = dcPred[ci] &+ reader.receiveExtend(t)
                        dcPred[ci] = dc
                        data[0] = Int16(truncatingIfNeeded: dc &* (1 << al))
                    } else if reader.bit() != 0 {
                        data[0] = data[0] &+ Int16(truncatingIfNeeded: 1 << al)
                    }
                    return
                }
                if ah == 0 {
                    // Progressive AC, first pass over the band, with end-of-band runs.
                    if eobRun > 0 { eobRun -= 1; return }
                    var k = ss
                    repeat {
                        let (r, s) = try runAndSize(ta)
                        if s == 0 {
                            if r < 15 {
                                eobRun = bandRun(r)
                                break
                            }
                            k += 16
                        } else {
                            k += r
                            let zig = dezigzag[min(k, 78)]
                            k += 1
                            data[zig] = Int16(truncatingIfNeeded: reader.receiveExtend(s) &* (1 << al))
                        }
                    } while k <= se
                    return
                }
                // Progressive AC refinement.
                let bitValue = Int16(truncatingIfNeeded: 1 << al)
                func refine(_ zig: Int) {
                    if data[zig] != 0 && reader.bit() != 0 && (data[zig] & bitValue) == 0 {
                        data[zig] = data[zig] > 0 ? data[zig] &+ bitValue : data[zig] &- bitValue
                    }
                }
                if eobRun > 0 {
                    eobRun -= 1
                    for k in ss...se { refine(dezigzag[k]) }
                    return
                }
                var k = ss
                repeat {
                    var (r, s) = try runAndSize(ta)
                    if s == 0 {
                        if r < 15 {
                            eobRun = bandRun(r)
                            r = 64  // the rest of the band only refines
                        }
                    } else {
                        guard s == 1 else { throw bad("AC refinement magnitude \(s)") }
                        s = reader.bit() != 0 ? Int(bitValue) : -Int(bitValue)
                    }
                    while k <= se {
                        let zig = dezigzag[k]
                        k += 1
                        if data[zig] != 0 {
                            refine(zig)
                        } else {
                            if r == 0 { data[zig] = Int16(truncatingIfNeeded: s); break }
                            r -= 1
                        }
                    }
                } while k <= se
            }
        }

        func restartIfDue() {
            todo -= 1
            if todo <= 0 && f.restartInterval > 0 {
                _ = reader.restart()
                for ci in dcPred.indices { dcPred[ci] = 0 }
                eobRun = 0
                todo = f.restartInterval
            }
        }

        if scan.count == 1 {
            // Non-interleaved: the component's own blocks, unpadded, in raster order.
            let ci = scan[0]
            let bw = (comps[ci].width + 7) / 8, bh = (comps[ci].height + 7) / 8
            blocks: for by in 0..<bh {
                for bx in 0..<bw {
                    try block(ci, bx, by)
                    // The file ends inside this scan: as libjpeg, the unit that ran out was decoded from zero bits
                    // and the units after it are left as they are (zero coefficients: mid-gray).
                    if reader.ranPastEnd { break blocks }
                    restartIfDue()
                }
            }
        } else {
            units: for my in 0..<f.mcusY {
                for mx in 0..<f.mcusX {
                    for ci in scan {
                        let ch = comps[ci].h, cv = comps[ci].v
                        for v in 0..<cv { for h in 0..<ch { try block(ci, mx * ch + h, my * cv + v) } }
                    }
                    if reader.ranPastEnd { break units }
                    restartIfDue()
                }
            }
        }
        if reader.ranPastEnd { truncated = true }
        // Continue at the next marker that is not a restart.
        var p = reader.p
        while p + 1 < bytes.count
            && !(bytes[p] == 0xFF && bytes[p + 1] != 0 && bytes[p + 1] != 0xFF
                 && !(0xD0...0xD7).contains(bytes[p + 1])) { p += 1 }
        return p
    }

    // MARK: - Reconstruction (stb_image's arithmetic)

    /// stb's `f2f`: a constant in 12-bit fixed point, rounded as its C expression does.
    static func f2f(_ x: Float) -> Int32 { Int32((Double(x * 4096) + 0.5).rounded(.towardZero)) }
    static let c0541 = f2f(0.5411961), cm1847 = f2f(-1.847759065), c0765 = f2f(0.765366865)
    static let c1175 = f2f(1.175875602), c0298 = f2f(0.298631336), c2053 = f2f(2.053119869), c3072 = f2f(3.072711026)
    static let c1501 = f2f(1.501321110), cm0899 = f2f(-0.899976223), cm2562 = f2f(-2.562915447),
        cm1961 = f2f(-1.961570560)
    static let cm0390 = f2f(-0.390180644)

    /// The islow 1-D IDCT (jidctint's, as stb writes it): returns x0..x3 and t0..t3 whose
    /// sums and differences are the outputs.
    @inline(__always)
    static func idct1D(_ s0: Int32, _ s1: Int32, _ s2: Int32, _ s3: Int32, _ s4: Int32, _ s5: Int32, _ s6: Int32,
                       _ s7: Int32)
        -> (x0: Int32, x1: Int32, x2: Int32, x3: Int32, t0: Int32, t1: Int32, t2: Int32, t3: Int32) {
        var p2 = s2, p3 = s6
        var p1 = (p2 &+ p3) &* c0541
        var t2 = p1 &+ p3 &* cm1847
        var t3 = p1 &+ p2 &* c0765
        p2 = s0; p3 = s4
        var t0 = (p2 &+ p3) &* 4096
        var t1 = (p2 &- p3) &* 4096
        let x0 = t0 &+ t3, x3 = t0 &- t3, x1 = t1 &+ t2, x2 = t1 &- t2
        t0 = s7; t1 = s5; t2 = s3; t3 = s1
        p3 = t0 &+ t2
        var p4 = t1 &+ t3
        p1 = t0 &+ t3
        p2 = t1 &+ t2
        let p5 = (p3 &+ p4) &* c1175
        t0 = t0 &* c0298; t1 = t1 &* c2053; t2 = t2 &* c3072; t3 = t3 &* c1501
        p1 = p5 &+ p1 &* cm0899
        p2 = p5 &+ p2 &* cm2562
        p3 = p3 &* cm1961
        p4 = p4 &* cm0390
        t3 = t3 &+ p1 &+ p4
        t2 = t2 &+ p2 &+ p3
        t1 = t1 &+ p2 &+ p4
        t0 = t0 &+ p1 &+ p3
        return (x0, x1, x2, x3, t0, t1, t2, t3)
    }

    @inline(__always) static func clamp8(_ x: Int32) -> UInt8 { x < 0 ? 0 : (x > 255 ? 255 : UInt8(x)) }

    /// Inverse DCT of one block of dequantized coefficients into 8x8 samples.
    static func idctBlock(_ d: UnsafeBufferPointer<Int16>, _ out: UnsafeMutablePointer<UInt8>, stride: Int) {
        // The column pass's output on the stack (an array here was a heap allocation per block).
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { v in
        for i in 0..<8 {
            if d[i + 8] == 0 && d[i + 16] == 0 && d[i + 24] == 0 && d[i + 32] == 0 && d[i + 40] == 0 && d[i + 48] == 0
                && d[i + 56] == 0 {
                let dc = Int32(d[i]) &* 4
                for r in 0..<8 { v[i + 8 * r] = dc }
                continue
            }
            var r = idct1D(Int32(d[i]), Int32(d[i + 8]), Int32(d[i + 16]), Int32(d[i + 24]), Int32(d[i + 32]),
                           Int32(d[i + 40]),
                           Int32(d[i + 48]), Int32(d[i + 56]))
            // 12 fractional bits from the constants; keep 2 more than the input for the rows.
            r.x0 &+= 512; r.x1 &+= 512; r.x2 &+= 512; r.x3 &+= 512
            v[i] = (r.x0 &+ r.t3) >> 10; v[i + 56] = (r.x0 &- r.t3) >> 10
            v[i + 8] = (r.x1 &+ r.t2) >> 10; v[i + 48] = (r.x1 &- r.t2) >> 10
            v[i + 16] = (r.x2 &+ r.t1) >> 10; v[i + 40] = (r.x2 &- r.t1) >> 10
            v[i + 24] = (r.x3 &+ r.t0) >> 10; v[i + 32] = (r.x3 &- r.t0) >> 10
        }
        for i in 0..<8 {
            let b = 8 * i
            var r = idct1D(v[b], v[b + 1], v[b + 2], v[b + 3], v[b + 4], v[b + 5], v[b + 6], v[b + 7])
            // 17 bits to remove (12 + 2 + 3), rounded, and the +128 level shift folded in.
            let bias: Int32 = 65536 + (128 << 17)
            r.x0 &+= bias; r.x1 &+= bias; r.x2 &+= bias; r.x3 &+= bias
            let o = out + i * stride
            o[0] = clamp8((r.x0 &+ r.t3) >> 17); o[7] = clamp8((r.x0 &- r.t3) >> 17)
            o[1] = clamp8((r.x1 &+ r.t2) >> 17); o[6] = clamp8((r.x1 &- r.t2) >> 17)
            o[2] = clamp8((r.x2 &+ r.t1) >> 17); o[5] = clamp8((r.x2 &- r.t1) >> 17)
            o[3] = clamp8((r.x3 &+ r.t0) >> 17); o[4] = clamp8((r.x3 &- r.t0) >> 17)
        }
        }
    }

    /// A component's samples: dequantized (progressive files) and inverse transformed.
    static func plane(_ c: Component, quant: [Int], progressive: Bool) -> [UInt8] {
        let stride = c.blocksW * 8
        var out = [UInt8](repeating: 0, count: stride * c.blocksH * 8)
        // stb transforms the blocks that cover the component; MCU padding stays 0 (never read).
        let bw = min(c.blocksW, (c.width + 7) / 8), bh = min(c.blocksH, (c.height + 7) / 8)
        var block = [Int16](repeating: 0, count: 64)
        c.coefficients.withUnsafeBufferPointer { coef in
            out.withUnsafeMutableBufferPointer { o in
                guard let ob = o.baseAddress else { return }
                for by in 0..<bh {
                    for bx in 0..<bw {
                        let base = (by * c.blocksW + bx) * 64
                        for i in 0..<64 {
                            block[i] = progressive
                                ? coef[base + i] &* Int16(truncatingIfNeeded: quant[i]) : coef[base + i]
                        }
                        block.withUnsafeBufferPointer { idctBlock($0, ob + by * 8 * stride + bx * 8, stride: stride) }
                    }
                }
            }
        }
        return out
    }

    /// One output row of a component at full resolution from its rows `near` and `far`
    /// (stb's resample_row_* kernels: copy, vertical, horizontal, both by 2, else nearest).
    static func resampleRow(_ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>, width w: Int, hs: Int, vs: Int,
                            into out: UnsafeMutablePointer<UInt8>) {
        func div4(_ x: Int) -> UInt8 { UInt8(truncatingIfNeeded: x >> 2) }
        func div16(_ x: Int) -> UInt8 { UInt8(truncatingIfNeeded: x >> 4) }
        switch (hs, vs) {
        case (1, 1):
            out.update(from: near, count: w)
        case (1, 2):
            for i in 0..<w { out[i] = div4(3 * Int(near[i]) + Int(far[i]) + 2) }
        case (2, 1):
            if w == 1 { out[0] = near[0]; out[1] = near[0]; break }
            out[0] = near[0]
            out[1] = div4(Int(near[0]) * 3 + Int(near[1]) + 2)
            var i = 1
            while i < w - 1 {
                let n = 3 * Int(near[i]) + 2
                out[2 * i] = div4(n + Int(near[i - 1]))
                out[2 * i + 1] = div4(n + Int(near[i + 1]))
                i += 1
            }
            out[2 * i] = div4(Int(near[w - 2]) * 3 + Int(near[w - 1]) + 2)
            out[2 * i + 1] = near[w - 1]
        case (2, 2):
            if w == 1 { let v = div4(3 * Int(near[0]) + Int(far[0]) + 2); out[0] = v; out[1] = v; break }
            var t1 = 3 * Int(near[0]) + Int(far[0])
            out[0] = div4(t1 + 2)
            for i in 1..<w {
                let t0 = t1
                t1 = 3 * Int(near[i]) + Int(far[i])
                out[2 * i - 1] = div16(3 * t0 + t1 + 8)
                out[2 * i] = div16(3 * t1 + t0 + 8)
            }
            out[2 * w - 1] = div4(t1 + 2)
        default:
            for i in 0..<w { for j in 0..<hs { out[i * hs + j] = near[i] } }
        }
    }

    /// stb's `float2fixed`: 12 bits, shifted to 20, from a float expression.
    static func float2fixed(_ x: Float) -> Int32 { Int32(x * 4096 + 0.5) << 8 }
    static let crR = float2fixed(1.40200), crG = -float2fixed(0.71414), cbG = -float2fixed(0.34414),
        cbB = float2fixed(1.77200)

    @inline(__always) static func clampShift20(_ x: Int32) -> UInt8 { clamp8(x >> 20) }

    /// `x * y / 255` rounded, as stb's `blinn_8x8` (CMYK to RGB).
    @inline(__always) static func blinn(_ x: UInt8, _ y: UInt8) -> UInt8 {
        let t = Int(x) * Int(y) + 128
        return UInt8(truncatingIfNeeded: (t + (t >> 8)) >> 8)
    }

    static func reconstruct(_ f: Frame, orientation: Int?) -> DecodedImage {
        let w = f.width, h = f.height
        let planes = f.components.map { plane($0, quant: f.quant[$0.tq], progressive: f.progressive) }
        let n = f.components.count
        let outChannels = n >= 3 ? 3 : 1
        let isRGB = n == 3 && (f.components.map(\.id) == [82, 71, 66] || (f.adobeTransform == 0 && !f.jfif))
        var out = [UInt8](repeating: 0, count: w * h * outChannels)
        // Per component: the two source rows the next output row is made from (stb's
        // resampler state: rows advance every `vs` output rows, starting half-way).
        struct Resampler { var hs: Int, vs: Int, ystep: Int, ypos = 0, line0 = 0, line1 = 0, widthLow: Int }
        var res = f.components.map { c -> Resampler in
            let hs = f.hmax / c.h, vs = f.vmax / c.v
            return Resampler(hs: hs, vs: vs, ystep: vs >> 1, widthLow: (w + hs - 1) / hs)
        }
        var lineBuffers = [[UInt8]](repeating: [UInt8](repeating: 0, count: w + 3), count: n)
        for y in 0..<h {
            for k in 0..<n {
                let c = f.components[k], r = res[k]
                let stride = c.blocksW * 8
                let bottom = r.ystep >= (r.vs >> 1)
                let nearRow = bottom ? r.line1 : r.line0, farRow = bottom ? r.line0 : r.line1
                planes[k].withUnsafeBufferPointer { pl in
                    lineBuffers[k].withUnsafeMutableBufferPointer { lb in
                        guard let src = pl.baseAddress, let dst = lb.baseAddress else { return }
                        resampleRow(src + nearRow * stride, src + farRow * stride, width: r.widthLow, hs: r.hs,
                                    vs: r.vs, into: dst)
                    }
                }
                res[k].ystep += 1
                if res[k].ystep >= r.vs {
                    res[k].ystep = 0
                    res[k].line0 = res[k].line1
                    res[k].ypos += 1
                    if res[k].ypos < c.height { res[k].line1 += 1 }
                }
            }
            convertRow(y: y, width: w, rows: lineBuffers, components: n, isRGB: isRGB, adobe: f.adobeTransform,
                       into: &out)
        }
        return DecodedImage(width: w, height: h, channels: outChannels, pixels: out, exifOrientation: orientation)
    }

    /// Colour conversion of one output row from the upsampled component rows.
    static func convertRow(y: Int, width w: Int, rows: [[UInt8]], components n: Int, isRGB: Bool, adobe: Int?,
                           into out: inout [UInt8]) {
        if n == 1 {
            for x in 0..<w { out[y * w + x] = rows[0][x] }
            return
        }
        let o = y * w * 3
        let Y = rows[0], cb = rows[1], cr = rows[2]
        func ycc(_ x: Int) -> (UInt8, UInt8, UInt8) {
            let yf = (Int32(Y[x]) << 20) + (1 << 19)
            let crv = Int32(cr[x]) - 128, cbv = Int32(cb[x]) - 128
            let r = yf &+ crv &* crR
            let g = yf &+ crv &* crG &+ ((cbv &* cbG) & Int32(bitPattern: 0xFFFF_0000))
            let b = yf &+ cbv &* cbB
            return (clampShift20(r), clampShift20(g), clampShift20(b))
        }
        for x in 0..<w {
            var px: (UInt8, UInt8, UInt8)
            if n == 3 {
                px = isRGB ? (Y[x], cb[x], cr[x]) : ycc(x)
            } else if adobe == 0 {  // CMYK
                let m = rows[3][x]
                px = (blinn(Y[x], m), blinn(cb[x], m), blinn(cr[x], m))
            } else if adobe == 2 {  // YCCK
                let m = rows[3][x]
                let c = ycc(x)
                px = (blinn(255 - c.0, m), blinn(255 - c.1, m), blinn(255 - c.2, m))
            } else {
                px = ycc(x)
            }
            out[o + 3 * x] = px.0; out[o + 3 * x + 1] = px.1; out[o + 3 * x + 2] = px.2
        }
    }
}
