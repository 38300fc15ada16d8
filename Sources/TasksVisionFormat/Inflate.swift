/// DEFLATE decompression (RFC 1951) and the zlib wrapper (RFC 1950), for PNG and deflated zip entries.
/// Every read is bounds-checked; output is capped by the caller's expected size.
package struct Inflate {
    package struct Failure: Error { package let reason: String }

    private let input: [UInt8]
    private var position = 0
    private var bitBuffer: UInt32 = 0
    private var bitCount = 0
    private var output: [UInt8] = []
    private let limit: Int

    private init(_ input: [UInt8], limit: Int) {
        self.input = input
        self.limit = limit
        output.reserveCapacity(min(limit, 1 << 26))
    }

    /// Decompresses a zlib stream, producing at most `limit` bytes.
    package static func zlib(_ data: [UInt8], limit: Int) throws -> [UInt8] {
        guard data.count >= 6 else { throw Failure(reason: "zlib stream of \(data.count) bytes is too short") }
        let cmf = data[0], flg = data[1]
        guard cmf & 0x0F == 8, (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 else {
            throw Failure(reason: "bad zlib header")
        }
        guard flg & 0x20 == 0 else { throw Failure(reason: "zlib preset dictionary is not supported") }
        var inflater = Inflate(Array(data[2...]), limit: limit)
        try inflater.run()
        return inflater.output
    }

    private mutating func bits(_ n: Int) throws -> Int {
        while bitCount < n {
            guard position < input.count else { throw Failure(reason: "compressed data ends early") }
            bitBuffer |= UInt32(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let v = Int(bitBuffer & ((1 << n) - 1))
        bitBuffer >>= n
        bitCount -= n
        return v
    }

    /// A canonical Huffman decoding table: counts per length and symbols in order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []
        init(lengths: [Int]) throws {
            for l in lengths { counts[l] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for i in 1..<16 { offsets[i] = offsets[i - 1] + counts[i - 1] }
            symbols = [Int](repeating: 0, count: lengths.count)
            var left = 1
            for i in 1..<16 {
                left <<= 1; left -= counts[i]; if left < 0 { throw Failure(reason: "over-subscribed Huffman code") }
            }
            for (s, l) in lengths.enumerated() where l != 0 { symbols[offsets[l]] = s; offsets[l] += 1 }
        }
    }

    private mutating func decode(_ h: Huffman) throws -> Int {
        var code = 0, first = 0, index = 0
        for len in 1..<16 {
            code |= try bits(1)
            let count = h.counts[len]
            if code - count < first { return h.symbols[index + (code - first)] }
            index += count
            first += count
            first <<= 1
            code <<= 1
        }
        throw Failure(reason: "invalid Huffman code")
    }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
                             131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025,
                               1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12,
                                12, 13, 13]

    private mutating func run() throws {
        var last = false
        while !last {
            last = try bits(1) == 1
            switch try bits(2) {
            case 0: try stored()
            case 1:
                var lengths = [Int](repeating: 8, count: 288)
                for i in 144..<256 { lengths[i] = 9 }
                for i in 256..<280 { lengths[i] = 7 }
                try block(try Huffman(lengths: lengths), try Huffman(lengths: [Int](repeating: 5, count: 30)))
            case 2: try dynamic()
            default: throw Failure(reason: "invalid block type")
            }
        }
    }

    private mutating func stored() throws {
        bitBuffer = 0; bitCount = 0
        guard position + 4 <= input.count else { throw Failure(reason: "stored block header ends early") }
        let len = Int(input[position]) | Int(input[position + 1]) << 8
        let nlen = Int(input[position + 2]) | Int(input[position + 3]) << 8
        guard len == (~nlen & 0xFFFF) else { throw Failure(reason: "stored block length check fails") }
        position += 4
        guard position + len <= input.count else { throw Failure(reason: "stored block ends early") }
        guard output.count + len <= limit else { throw Failure(reason: "decompressed data is larger than the image") }
        output.append(contentsOf: input[position..<(position + len)])
        position += len
    }

    private mutating func dynamic() throws {
        let nlen = try bits(5) + 257, ndist = try bits(5) + 1, ncode = try bits(4) + 4
        guard nlen <= 286, ndist <= 30 else { throw Failure(reason: "bad code counts") }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for i in 0..<ncode { codeLengths[order[i]] = try bits(3) }
        let lencode = try Huffman(lengths: codeLengths)
        var lengths: [Int] = []
        while lengths.count < nlen + ndist {
            let sym = try decode(lencode)
            switch sym {
            case 0..<16: lengths.append(sym)
            case 16:
                guard let prev = lengths.last else { throw Failure(reason: "repeat with no previous length") }
                lengths += [Int](repeating: prev, count: 3 + (try bits(2)))
            case 17: lengths += [Int](repeating: 0, count: 3 + (try bits(3)))
            default: lengths += [Int](repeating: 0, count: 11 + (try bits(7)))
            }
        }
        guard lengths.count == nlen + ndist else { throw Failure(reason: "too many code lengths") }
        try block(try Huffman(lengths: Array(lengths[0..<nlen])), try Huffman(lengths: Array(lengths[nlen...])))
    }

    private mutating func block(_ lit: Huffman, _ dist: Huffman) throws {
        while true {
            let sym = try decode(lit)
            if sym < 256 {
                guard output.count < limit else { throw Failure(reason: "decompressed data is larger than the image") }
                output.append(UInt8(sym))
            } else if sym == 256 {
                return
            } else {
                let li = sym - 257
                guard li < 29 else { throw Failure(reason: "bad length symbol") }
                let length = Self.lengthBase[li] + (try bits(Self.lengthExtra[li]))
                let di = try decode(dist)
                guard di < 30 else { throw Failure(reason: "bad distance symbol") }
                let distance = Self.distanceBase[di] + (try bits(Self.distanceExtra[di]))
                guard distance <= output.count else { throw Failure(reason: "distance too far back") }
                guard output.count + length <= limit else {
                    throw Failure(reason: "decompressed data is larger than the image")
                }
                let start = output.count - distance
                for i in 0..<length { output.append(output[start + i]) }
            }
        }
    }
}

/// Adler-32 checksum (zlib).
package func adler32(_ data: [UInt8]) -> UInt32 {
    var a: UInt32 = 1, b: UInt32 = 0
    var i = 0
    while i < data.count {
        let end = min(i + 5552, data.count)
        while i < end { a += UInt32(data[i]); b += a; i += 1 }
        a %= 65521; b %= 65521
    }
    return b << 16 | a
}
