import TasksVisionFormat

/// PNG decoding (all color types, bit depths 1-16, palettes, transparency, Adam7)
/// and encoding (8-bit gray, RGB or RGBA, filtered and zlib-compressed).
public enum PNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public static func isPNG(_ bytes: [UInt8]) -> Bool { bytes.count >= 8 && Array(bytes[0..<8]) == signature }

    /// Decodes to 8 bits per channel: gray (1), gray+alpha expanded to RGBA (4), RGB (3) or RGBA (4).
    public static func decode(_ bytes: [UInt8], name: String) throws -> DecodedImage {
        func bad(_ r: String) -> ImageIOError { .malformed(file: name, reason: r) }
        guard isPNG(bytes) else { throw bad("missing PNG signature") }
        var p = 8
        var width = 0, height = 0, depth = 0, colorType = 0, interlace = 0
        var palette: [UInt8] = [], transparency: [UInt8] = []
        var idat: [UInt8] = []
        var sawHeader = false, sawEnd = false
        func be32(_ i: Int) -> Int {
            Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        }
        while p + 12 <= bytes.count {
            let length = be32(p)
            let type = chunkName(bytes[(p + 4)..<(p + 8)])
            guard length <= bytes.count - p - 12 else {
                // Where the file ends, where the chunk starts, and how much of it is there.
                let present = max(0, min(length, bytes.count - p - 8))
                throw bad("truncated at byte \(bytes.count): chunk \(type) at byte \(p) holds \(length) bytes of data "
                          + "and its CRC, of which \(present) bytes of data are in the file")
            }
            let data = Array(bytes[(p + 8)..<(p + 8 + length)])
            let crc = UInt32(be32(p + 8 + length))
            guard CRC32.checksum(Array(bytes[(p + 4)..<(p + 8 + length)])) == crc else {
                throw bad("chunk \(type) at byte \(p) fails its CRC check")
            }
            switch type {
            case "IHDR":
                guard length == 13 else { throw bad("IHDR of \(length) bytes") }
                width = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
                height = Int(data[4]) << 24 | Int(data[5]) << 16 | Int(data[6]) << 8 | Int(data[7])
                depth = Int(data[8]); colorType = Int(data[9]); interlace = Int(data[12])
                sawHeader = true
            case "PLTE": palette = data
            case "tRNS": transparency = data
            case "IDAT": idat += data
            case "IEND": sawEnd = true
            default: break
            }
            p += 12 + length
            if sawEnd { break }
        }
        // The file ends before IEND, between chunks or inside a chunk's header: said so, not taken for bad data.
        let truncated = sawEnd ? nil : "truncated at byte \(bytes.count) (no IEND chunk"
            + (p < bytes.count ? "; \(bytes.count - p) bytes of a chunk header at byte \(p))" : ")")
        guard sawHeader else { throw bad(truncated ?? "no IHDR chunk") }
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20, width * height <= maximumPixelCount else {
            throw ImageIOError.unsupported(file: name, reason: "size \(width)x\(height)")
        }
        let samplesPerPixel: Int
        switch colorType {
        case 0: samplesPerPixel = 1
        case 2: samplesPerPixel = 3
        case 3: samplesPerPixel = 1
        case 4: samplesPerPixel = 2
        case 6: samplesPerPixel = 4
        default: throw bad("color type \(colorType)")
        }
        let validDepths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard validDepths[colorType]?.contains(depth) == true else {
            throw bad("bit depth \(depth) for color type \(colorType)")
        }
        guard interlace == 0 || interlace == 1 else { throw bad("interlace method \(interlace)") }
        if colorType == 3 && (palette.isEmpty || palette.count % 3 != 0) { throw bad("missing or bad palette") }
        guard !idat.isEmpty else { throw bad(truncated.map { "\($0): no image data" } ?? "no image data") }

        let bitsPerPixel = samplesPerPixel * depth
        let bytesPerPixel = max(1, bitsPerPixel / 8)
        // Passes (Adam7 or a single full pass).
        let passes: [(x0: Int, y0: Int, dx: Int, dy: Int)] = interlace == 1
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var expected = 0
        for pass in passes {
            let pw = (width - pass.x0 + pass.dx - 1) / pass.dx, ph = (height - pass.y0 + pass.dy - 1) / pass.dy
            if pw > 0 && ph > 0 { expected += ph * (1 + (pw * bitsPerPixel + 7) / 8) }
        }
        let raw: [UInt8]
        do { raw = try Inflate.zlib(idat, limit: expected) } catch let f as Inflate.Failure {
            throw bad(truncated.map { "\($0): image data: \(f.reason)" } ?? "image data: \(f.reason)")
        }
        guard raw.count == expected else {
            let short = "image data has \(raw.count) bytes, expected \(expected)"
            throw bad(truncated.map { "\($0): \(short)" } ?? short)
        }

        let hasAlpha = colorType == 4 || colorType == 6 || !transparency.isEmpty
        let outChannels = colorType == 0 && !hasAlpha ? 1 : (hasAlpha ? 4 : 3)
        var out = [UInt8](repeating: 0, count: width * height * outChannels)
        var offset = 0
        for pass in passes {
            let pw = (width - pass.x0 + pass.dx - 1) / pass.dx, ph = (height - pass.y0 + pass.dy - 1) / pass.dy
            guard pw > 0 && ph > 0 else { continue }
            let stride = (pw * bitsPerPixel + 7) / 8
            var previous = [UInt8](repeating: 0, count: stride)
            var line = [UInt8](repeating: 0, count: stride)
            for row in 0..<ph {
                let filter = raw[offset]
                for i in 0..<stride { line[i] = raw[offset + 1 + i] }
                offset += 1 + stride
                try unfilter(&line, previous, filter, bytesPerPixel, name)
                for col in 0..<pw {
                    let x = pass.x0 + col * pass.dx, y = pass.y0 + row * pass.dy
                    let o = (y * width + x) * outChannels
                    func sample(_ s: Int) -> Int {
                        if depth == 8 { return Int(line[col * samplesPerPixel + s]) }
                        if depth == 16 {
                            let i = (col * samplesPerPixel + s) * 2
                            return Int(line[i]) << 8 | Int(line[i + 1])
                        }
                        let bit = (col * samplesPerPixel + s) * depth
                        return (Int(line[bit / 8]) >> (8 - depth - bit % 8)) & ((1 << depth) - 1)
                    }
                    func to8(_ v: Int) -> UInt8 {
                        switch depth {
                        case 16: return UInt8(v >> 8)
                        case 8: return UInt8(v)
                        default: return UInt8(v * 255 / ((1 << depth) - 1))
                        }
                    }
                    switch colorType {
                    case 0:
                        let g = to8(sample(0))
                        if outChannels == 1 { out[o] = g } else {
                            let t = transparency.count >= 2 ? Int(transparency[0]) << 8 | Int(transparency[1]) : -1
                            out[o] = g; out[o + 1] = g; out[o + 2] = g; out[o + 3] = sample(0) == t ? 0 : 255
                        }
                    case 2:
                        for c in 0..<3 { out[o + c] = to8(sample(c)) }
                        if outChannels == 4 {
                            var opaque = true
                            if transparency.count >= 6 {
                                opaque = !(0..<3).allSatisfy {
                                    sample($0) == (Int(transparency[2 * $0]) << 8 | Int(transparency[2 * $0 + 1]))
                                }
                            }
                            out[o + 3] = opaque ? 255 : 0
                        }
                    case 3:
                        let index = sample(0)
                        guard index * 3 + 2 < palette.count else { throw bad("palette index \(index) out of range") }
                        for c in 0..<3 { out[o + c] = palette[index * 3 + c] }
                        if outChannels == 4 { out[o + 3] = index < transparency.count ? transparency[index] : 255 }
                    case 4:
                        let g = to8(sample(0))
                        out[o] = g; out[o + 1] = g; out[o + 2] = g; out[o + 3] = to8(sample(1))
                    default:
                        for c in 0..<4 { out[o + c] = to8(sample(c)) }
                    }
                }
                swap(&previous, &line)
            }
        }
        return DecodedImage(width: width, height: height, channels: outChannels, pixels: out)
    }

    /// A chunk's type as text, a byte that is not a printable letter written `\xNN` (a damaged file's bytes
    /// never reach a message raw).
    static func chunkName(_ bytes: ArraySlice<UInt8>) -> String {
        let hex = Array("0123456789abcdef")
        return bytes.map { b in
            (0x21...0x7E).contains(b) && b != 0x5C ? String(UnicodeScalar(b))
                : "\\x\(hex[Int(b >> 4)])\(hex[Int(b & 15)])"
        }.joined()
    }

    static func unfilter(_ line: inout [UInt8], _ prev: [UInt8], _ filter: UInt8, _ bpp: Int, _ name: String) throws {
        let n = line.count
        switch filter {
        case 0: break
        case 1: for i in bpp..<max(n, bpp) where i < n { line[i] = line[i] &+ line[i - bpp] }
        case 2: for i in 0..<n { line[i] = line[i] &+ prev[i] }
        case 3:
            for i in 0..<n {
                let left = i >= bpp ? Int(line[i - bpp]) : 0
                line[i] = line[i] &+ UInt8((left + Int(prev[i])) / 2)
            }
        case 4:
            for i in 0..<n {
                let a = i >= bpp ? Int(line[i - bpp]) : 0, b = Int(prev[i]), c = i >= bpp ? Int(prev[i - bpp]) : 0
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                line[i] = line[i] &+ UInt8(pa <= pb && pa <= pc ? a : (pb <= pc ? b : c))
            }
        default: throw ImageIOError.malformed(file: name, reason: "unknown row filter \(filter)")
        }
    }

    /// Encodes 8-bit gray (1), RGB (3) or RGBA (4) pixels, compressed as PNG writers do: each row filtered
    /// with the filter libpng's heuristic picks (the least sum of the filtered bytes taken as signed), then zlib.
    public static func encode(width: Int, height: Int, channels: Int, pixels: [UInt8]) -> [UInt8] {
        precondition(pixels.count == width * height * channels && [1, 3, 4].contains(channels))
        func be32(_ v: Int) -> [UInt8] {
            [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(CRC32.checksum(body)))
        }
        let colorType: UInt8 = channels == 1 ? 0 : (channels == 3 ? 2 : 6)
        let z = Deflate.zlib(filtered(width: width, height: height, channels: channels, pixels: pixels))
        return signature + chunk("IHDR", be32(width) + be32(height) + [8, colorType, 0, 0, 0]) + chunk("IDAT", z)
            + chunk("IEND", [])
    }

    /// The rows, each after its filter byte, filtered (None, Sub, Up, Average or Paeth: whichever gives the least
    /// sum of |byte as signed|, libpng's heuristic).
    static func filtered(width: Int, height: Int, channels: Int, pixels: [UInt8]) -> [UInt8] {
        let stride = width * channels, bpp = channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var trial = [UInt8](repeating: 0, count: 4 * stride)
        let zeros = [UInt8](repeating: 0, count: stride)
        pixels.withUnsafeBufferPointer { src in
            raw.withUnsafeMutableBufferPointer { dst in
                trial.withUnsafeMutableBufferPointer { t in
                    zeros.withUnsafeBufferPointer { zero in
                        guard let s0 = src.baseAddress, let d0 = dst.baseAddress, let t0 = t.baseAddress,
                              let z0 = zero.baseAddress, stride > 0 else { return }
                        let sub = t0, up = t0 + stride, average = t0 + 2 * stride, paeth = t0 + 3 * stride
                        for y in 0..<height {
                            let row = s0 + y * stride
                            let above = y > 0 ? row - stride : z0
                            let head = min(bpp, stride)
                            for i in 0..<head {
                                sub[i] = row[i]
                                up[i] = row[i] &- above[i]
                                average[i] = row[i] &- (above[i] >> 1)
                                paeth[i] = row[i] &- above[i]
                            }
                            for i in head..<stride { sub[i] = row[i] &- row[i - bpp] }
                            for i in head..<stride { up[i] = row[i] &- above[i] }
                            for i in head..<stride {
                                average[i] = row[i] &- UInt8((UInt16(row[i - bpp]) &+ UInt16(above[i])) >> 1)
                            }
                            for i in head..<stride {
                                paeth[i] = row[i] &- Self.paeth(row[i - bpp], above[i], above[i - bpp])
                            }
                            var best = row, bestFilter: UInt8 = 0, bestSum = score(row, stride)
                            for (filter, candidate) in [(UInt8(1), sub), (2, up), (3, average), (4, paeth)] {
                                let sum = score(candidate, stride)
                                if sum < bestSum { bestSum = sum; best = UnsafePointer(candidate); bestFilter = filter }
                            }
                            let line = d0 + y * (stride + 1)
                            line[0] = bestFilter
                            (line + 1).update(from: best, count: stride)
                        }
                    }
                }
            }
        }
        return raw
    }

    /// The sum of |byte as signed|.
    @inline(__always) static func score(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var sum = 0
        for i in 0..<n { sum &+= Int(abs(Int16(Int8(bitPattern: p[i])))) }
        return sum
    }

    @inline(__always) static func score(_ p: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int {
        score(UnsafePointer(p), n)
    }

    @inline(__always) static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int16(a) + Int16(b) - Int16(c)
        let pa = abs(p - Int16(a)), pb = abs(p - Int16(b)), pc = abs(p - Int16(c))
        return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
    }
}
