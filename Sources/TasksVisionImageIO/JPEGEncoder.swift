import Foundation

/// Baseline JPEG encoding (JFIF, YCbCr 4:2:0 or gray, the standard Huffman tables, the IJG quality scale of the
/// standard quantization tables), for the overlays the command line writes as `.jpg`.
public enum JPEGEncoder {
    /// Encodes gray (1), RGB (3) or RGBA (4, the alpha dropped) pixels at `quality` 1-100 (libjpeg's scale).
    public static func encode(_ image: DecodedImage, quality: Int = 90) -> [UInt8] {
        let gray = image.channels == 1
        let q = max(1, min(100, quality))
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        func scaled(_ table: [Int]) -> [Int] { table.map { max(1, min(255, ($0 * scale + 50) / 100)) } }
        let lumaQ = scaled(lumaQuantization), chromaQ = scaled(chromaQuantization)

        var out: [UInt8] = [0xFF, 0xD8]
        func segment(_ marker: UInt8, _ data: [UInt8]) {
            out += [0xFF, marker, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
        }
        segment(0xE0, [0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        segment(0xDB, [0] + zigzag.map { UInt8(lumaQ[$0]) } + (gray ? [] : [1] + zigzag.map { UInt8(chromaQ[$0]) }))
        let w = image.width, h = image.height
        var frame: [UInt8] = [8, UInt8(h >> 8), UInt8(h & 0xFF), UInt8(w >> 8), UInt8(w & 0xFF)]
        frame += gray ? [1, 1, 0x11, 0] : [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        segment(0xC0, frame)
        var tables: [UInt8] = []
        for (index, table) in ([(0x00, dcLuma), (0x10, acLuma)] + (gray ? [] : [(0x01, dcChroma), (0x11, acChroma)])) {
            tables += [UInt8(index)] + table.counts.map(UInt8.init) + table.symbols
        }
        segment(0xC4, tables)
        segment(0xDA, gray ? [1, 1, 0x00, 0, 63, 0] : [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0])

        var writer = BitWriter()
        let lumaDC = Codes(dcLuma), lumaAC = Codes(acLuma), chromaDC = Codes(dcChroma), chromaAC = Codes(acChroma)
        var previous = [0, 0, 0]
        let mcu = gray ? 8 : 16
        var block = [Float](repeating: 0, count: 64)
        // The samples of one component of one MCU: Y (the MCU's pixels), Cb and Cr (2x2 means).
        var planes = [[Float]](repeating: [Float](repeating: 0, count: 256), count: 3)
        for my in stride(from: 0, to: h, by: mcu) {
            for mx in stride(from: 0, to: w, by: mcu) {
                // The MCU's pixels, the edge repeated past the image.
                for y in 0..<mcu {
                    let sy = min(h - 1, my + y)
                    for x in 0..<mcu {
                        let sx = min(w - 1, mx + x)
                        let o = (sy * w + sx) * image.channels
                        if gray {
                            planes[0][y * 16 + x] = Float(image.pixels[o]) - 128
                        } else {
                            let r = Float(image.pixels[o]), g = Float(image.pixels[o + 1])
                            let b = Float(image.pixels[o + 2])
                            planes[0][y * 16 + x] = 0.299 * r + 0.587 * g + 0.114 * b - 128
                            planes[1][y * 16 + x] = -0.168736 * r - 0.331264 * g + 0.5 * b
                            planes[2][y * 16 + x] = 0.5 * r - 0.418688 * g - 0.081312 * b
                        }
                    }
                }
                for by in stride(from: 0, to: mcu, by: 8) {
                    for bx in stride(from: 0, to: mcu, by: 8) {
                        for i in 0..<64 { block[i] = planes[0][(by + i / 8) * 16 + bx + i % 8] }
                        encodeBlock(block, quant: lumaQ, dc: lumaDC, ac: lumaAC, previous: &previous[0], &writer)
                    }
                }
                if gray { continue }
                for c in 1...2 {
                    for i in 0..<64 {
                        let y = 2 * (i / 8), x = 2 * (i % 8)
                        block[i] = (planes[c][y * 16 + x] + planes[c][y * 16 + x + 1] + planes[c][(y + 1) * 16 + x]
                            + planes[c][(y + 1) * 16 + x + 1]) / 4
                    }
                    encodeBlock(block, quant: chromaQ, dc: chromaDC, ac: chromaAC, previous: &previous[c], &writer)
                }
            }
        }
        writer.finish()
        out += writer.bytes
        out += [0xFF, 0xD9]
        return out
    }

    /// One 8x8 block: the DCT, quantized, its DC as a difference from the last, its AC coefficients run-length coded.
    static func encodeBlock(_ samples: [Float], quant: [Int], dc: Codes, ac: Codes, previous: inout Int,
                            _ w: inout BitWriter) {
        var coefficients = [Int](repeating: 0, count: 64)
        var rows = [Float](repeating: 0, count: 64)
        for y in 0..<8 {
            for u in 0..<8 {
                var s: Float = 0
                for x in 0..<8 { s += samples[y * 8 + x] * cosines[u * 8 + x] }
                rows[y * 8 + u] = s
            }
        }
        for v in 0..<8 {
            for u in 0..<8 {
                var s: Float = 0
                for y in 0..<8 { s += rows[y * 8 + u] * cosines[v * 8 + y] }
                coefficients[v * 8 + u] = Int((s / Float(quant[v * 8 + u])).rounded())
            }
        }
        let diff = coefficients[0] - previous
        previous = coefficients[0]
        let dcSize = bitSize(diff)
        w.put(dc.code[dcSize], dc.length[dcSize])
        if dcSize > 0 { w.put(diff < 0 ? diff + (1 << dcSize) - 1 : diff, dcSize) }
        var run = 0
        for k in 1..<64 {
            let v = coefficients[zigzag[k]]
            if v == 0 { run += 1; continue }
            while run > 15 { w.put(ac.code[0xF0], ac.length[0xF0]); run -= 16 }
            let size = bitSize(v)
            let symbol = run << 4 | size
            w.put(ac.code[symbol], ac.length[symbol])
            w.put(v < 0 ? v + (1 << size) - 1 : v, size)
            run = 0
        }
        if run > 0 { w.put(ac.code[0], ac.length[0]) }
    }

    /// The bits of |v| (JPEG's magnitude category).
    static func bitSize(_ v: Int) -> Int {
        var m = abs(v), n = 0
        while m > 0 { n += 1; m >>= 1 }
        return n
    }

    /// The orthonormal DCT's basis, c(u) cos((2x + 1) u pi / 16) / 2, row u.
    static let cosines: [Float] = (0..<64).map { i in
        let u = i / 8, x = i % 8
        let c = u == 0 ? (0.5).squareRoot() : 1
        return Float(c * cos(Double(2 * x + 1) * Double(u) * Double.pi / 16) / 2)
    }

    /// The natural index of each coefficient in zigzag order.
    static let zigzag: [Int] = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34,
                                27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37,
                                44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63]

    /// A Huffman table as a DHT segment holds it: codes per length, the symbols in order.
    struct Table {
        let counts: [Int]
        let symbols: [UInt8]
    }

    /// A table's code and length per symbol.
    struct Codes {
        var code = [Int](repeating: 0, count: 256)
        var length = [Int](repeating: 0, count: 256)

        init(_ table: Table) {
            var c = 0, k = 0
            for len in 1...16 {
                for _ in 0..<table.counts[len - 1] {
                    code[Int(table.symbols[k])] = c
                    length[Int(table.symbols[k])] = len
                    c += 1; k += 1
                }
                c <<= 1
            }
        }
    }

    /// Entropy-coded bits, MSB first, an 0xFF byte followed by 0x00.
    struct BitWriter {
        var bytes: [UInt8] = []
        var buffer = 0
        var count = 0

        mutating func put(_ value: Int, _ bits: Int) {
            guard bits > 0 else { return }
            buffer = buffer << bits | (value & ((1 << bits) - 1))
            count += bits
            while count >= 8 {
                let byte = UInt8((buffer >> (count - 8)) & 0xFF)
                bytes.append(byte)
                if byte == 0xFF { bytes.append(0) }
                count -= 8
            }
            buffer &= (1 << count) - 1
        }

        /// Pads the last byte with 1 bits.
        mutating func finish() {
            if count > 0 { put((1 << (8 - count)) - 1, 8 - count) }
        }
    }

    static let lumaQuantization: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22,
        29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87,
        103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    static let chromaQuantization: [Int] = [
        17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    ]
    static let dcLuma = Table(counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
                          symbols: [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
                          ])
    static let acLuma = Table(counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125],
                          symbols: [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71,
        0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
        0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37,
        0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
        0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83,
        0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3,
        0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
        0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
        0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
                          ])
    static let dcChroma = Table(counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
                          symbols: [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
                          ])
    static let acChroma = Table(counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119],
                          symbols: [
        0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22,
        0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1,
        0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36,
        0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
        0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
        0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a,
        0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
        0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
        0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
                          ])
}
