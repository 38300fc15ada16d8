/// DEFLATE compression (RFC 1951) in the zlib wrapper (RFC 1950), for the PNG files the command line writes:
/// LZ77 over a 32 KiB window with hash chains, greedy matching cut short at a good length (zlib's fast levels),
/// each block coded with its own length-limited Huffman codes, or fixed codes or stored when those are smaller.
/// Every stream `Inflate` (and zlib) reads back to the same bytes.
package enum Deflate {
    static let windowSize = 1 << 15
    static let hashBits = 15
    static let minMatch = 4
    static let maxMatch = 258
    /// Symbols per block: large enough for codes to pay for their header, small enough to follow the data.
    static let blockSymbols = 1 << 15

    /// How hard to look for matches: the hash chain positions tried, and the length that ends the search.
    package struct Effort: Sendable {
        let chain: Int
        let goodLength: Int
        /// zlib level 1's speed, a little more compression.
        package static let fast = Effort(chain: 4, goodLength: 32)
        /// Near zlib's default level.
        package static let thorough = Effort(chain: 64, goodLength: 258)
    }

    /// `data` as a zlib stream (header 0x78 0x01, deflate blocks, Adler-32).
    package static func zlib(_ data: [UInt8], effort: Effort = .fast) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(data.count / 3 + 64)
        raw(data, effort: effort, into: &out)
        let a = adler32(data)
        out += [UInt8(a >> 24), UInt8((a >> 16) & 0xFF), UInt8((a >> 8) & 0xFF), UInt8(a & 0xFF)]
        return out
    }

    /// `data` as raw deflate blocks appended to `out`.
    package static func raw(_ data: [UInt8], effort: Effort = .fast, into out: inout [UInt8]) {
        var writer = BitWriter(out: out)
        out = []
        data.withUnsafeBufferPointer { input in
            var matcher = Matcher(effort: effort)
            var symbols = [UInt32]()
            symbols.reserveCapacity(blockSymbols + 2)
            var position = 0
            repeat {
                let start = position
                symbols.removeAll(keepingCapacity: true)
                position = matcher.fill(&symbols, from: input, at: position, limit: blockSymbols)
                BlockWriter.write(symbols, raw: UnsafeBufferPointer(rebasing: input[start..<position]),
                                  last: position == input.count, to: &writer)
            } while position < input.count
        }
        writer.flush()
        out = writer.out
    }

    // MARK: - LZ77

    /// A match is stored as 0x8000_0000 | (distance - 1) << 8 | (length - 3); a literal as its byte.
    static let matchFlag: UInt32 = 0x8000_0000

    struct Matcher {
        let effort: Effort
        /// The last position of each hash (+1; 0 is none), and each window position's previous one of its hash.
        var head = [Int32](repeating: 0, count: 1 << Deflate.hashBits)
        var previous = [Int32](repeating: 0, count: Deflate.windowSize)

        init(effort: Effort) { self.effort = effort }

        @inline(__always) static func hash(_ p: UnsafePointer<UInt8>) -> Int {
            let v = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
            return Int((v &* 2_654_435_761) >> UInt32(32 - Deflate.hashBits))
        }

        /// Appends the symbols of `input` from `start` until `limit` symbols or the end; returns where it stopped.
        mutating func fill(_ symbols: inout [UInt32], from input: UnsafeBufferPointer<UInt8>, at start: Int,
                           limit: Int) -> Int {
            guard let base = input.baseAddress else { return start }
            let n = input.count
            var i = start
            let chainLimit = effort.chain, good = effort.goodLength
            head.withUnsafeMutableBufferPointer { head in
                previous.withUnsafeMutableBufferPointer { prev in
                    let wmask = Deflate.windowSize - 1
                    @inline(__always) func insert(_ p: Int) {
                        let h = Matcher.hash(base + p)
                        prev[p & wmask] = head[h]
                        head[h] = Int32(p + 1)
                    }
                    while i < n && symbols.count < limit {
                        guard i + Deflate.minMatch <= n else {
                            symbols.append(UInt32(base[i]))
                            i += 1
                            continue
                        }
                        let h = Matcher.hash(base + i)
                        var candidate = Int(head[h]) - 1
                        prev[i & wmask] = head[h]
                        head[h] = Int32(i + 1)
                        let maxLength = min(Deflate.maxMatch, n - i)
                        var bestLength = 0, bestDistance = 0
                        var tries = chainLimit
                        while candidate >= 0 && i - candidate <= Deflate.windowSize && tries > 0 {
                            // A longer match must agree at the best length so far: one byte compared first.
                            if base[candidate + bestLength] == base[i + bestLength] || bestLength == 0 {
                                var l = 0
                                while l < maxLength && base[candidate + l] == base[i + l] { l += 1 }
                                if l > bestLength {
                                    bestLength = l
                                    bestDistance = i - candidate
                                    if l >= good || l == maxLength { break }
                                }
                            }
                            tries -= 1
                            let next = Int(prev[candidate & wmask]) - 1
                            if next >= candidate { break }
                            candidate = next
                        }
                        if bestLength >= Deflate.minMatch {
                            symbols.append(Deflate.matchFlag | UInt32(bestDistance - 1) << 8 | UInt32(bestLength - 3))
                            let end = i + bestLength
                            i += 1
                            // The positions inside the match are hashed too, so later data finds them.
                            while i < end {
                                if i + Deflate.minMatch <= n { insert(i) }
                                i += 1
                            }
                        } else {
                            symbols.append(UInt32(base[i]))
                            i += 1
                        }
                    }
                }
            }
            return i
        }
    }

    // MARK: - Codes

    static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99,
                                    115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5,
                                     5, 0]
    static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                      1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                                       12, 12, 13, 13]

    /// The length code index (0-28) of each match length - 3 (0-255).
    static let lengthCode: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 256)
        for code in 0..<29 {
            let count = code == 28 ? 1 : 1 << lengthExtra[code]
            for k in 0..<count where lengthBase[code] - 3 + k < 256 { t[lengthBase[code] - 3 + k] = UInt8(code) }
        }
        return t
    }()

    /// The distance code (0-29) of distance - 1 (0-32767).
    @inline(__always) static func distanceCode(_ d: Int) -> Int {
        d < 256 ? Int(smallDistanceCode[d]) : Int(smallDistanceCode[256 + (d >> 7)])
    }

    /// zlib's `_dist_code`: codes of distance - 1 below 256, then of (distance - 1) >> 7.
    static let smallDistanceCode: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 512)
        for code in 0..<30 {
            for k in 0..<(1 << distanceExtra[code]) {
                let d = distanceBase[code] - 1 + k
                if d < 256 { t[d] = UInt8(code) } else { t[256 + (d >> 7)] = UInt8(code) }
            }
        }
        return t
    }()

    /// Code lengths for `frequencies`, none longer than `limit` (zlib's way: the Huffman lengths, the overflow
    /// moved down the tree, then the lengths given out again by frequency). At least two symbols get a code, so
    /// that every code is complete.
    static func codeLengths(_ frequencies: [Int], limit: Int) -> [Int] {
        var freq = frequencies
        var used = freq.indices.filter { freq[$0] > 0 }
        var k = 0
        while used.count < 2 {
            // Symbols 0 and 1 (or the next unused ones) stand in with the least weight.
            if freq[k] == 0 { freq[k] = 1; used.append(k) }
            k += 1
        }
        // The two-queue Huffman construction on the leaves sorted by frequency.
        let leaves = used.sorted { freq[$0] != freq[$1] ? freq[$0] < freq[$1] : $0 < $1 }
        let n = leaves.count
        var weight = leaves.map { freq[$0] } + [Int](repeating: 0, count: n - 1)
        var parent = [Int](repeating: -1, count: 2 * n - 1)
        var leaf = 0, inner = n, made = n
        func smallest() -> Int {
            if leaf < n && (inner >= made || weight[leaf] <= weight[inner]) { leaf += 1; return leaf - 1 }
            inner += 1
            return inner - 1
        }
        while made < 2 * n - 1 {
            let a = smallest(), b = smallest()
            weight[made] = weight[a] + weight[b]
            parent[a] = made; parent[b] = made
            made += 1
        }
        var depth = [Int](repeating: 0, count: 2 * n - 1)
        for node in stride(from: 2 * n - 3, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }
        // Leaves per length, those past the limit clamped there and the tree mended (zlib's gen_bitlen). Every
        // node deeper than the limit, inner ones too, counts in `overflow`: a subtree of m leaves hanging below the
        // limit has 2m - 2 of them and needs m - 1 moves, each of which takes two.
        var count = [Int](repeating: 0, count: limit + 1)
        var overflow = 0
        for node in 0..<(2 * n - 1) where depth[node] > limit { overflow += 1 }
        for i in 0..<n { count[min(depth[i], limit)] += 1 }
        while overflow > 0 {
            var bits = limit - 1
            while count[bits] == 0 { bits -= 1 }
            count[bits] -= 1
            count[bits + 1] += 2
            count[limit] -= 1
            overflow -= 2
        }
        // The rarest symbols get the longest codes.
        var lengths = [Int](repeating: 0, count: frequencies.count)
        var next = 0
        for bits in stride(from: limit, through: 1, by: -1) {
            for _ in 0..<count[bits] {
                lengths[leaves[next]] = bits
                next += 1
            }
        }
        return lengths
    }

    /// Canonical codes of `lengths`, bit-reversed for the LSB-first stream.
    static func codes(_ lengths: [Int]) -> [UInt16] {
        let maxBits = lengths.max() ?? 0
        var count = [Int](repeating: 0, count: maxBits + 2)
        for l in lengths where l > 0 { count[l] += 1 }
        var next = [Int](repeating: 0, count: maxBits + 2)
        var code = 0
        if maxBits > 0 {
            for bits in 1...maxBits {
                code = (code + count[bits - 1]) << 1
                next[bits] = code
            }
        }
        return lengths.map { l in
            guard l > 0 else { return 0 }
            var c = next[l]
            next[l] += 1
            var r = 0
            for _ in 0..<l { r = r << 1 | (c & 1); c >>= 1 }
            return UInt16(r)
        }
    }

    static let fixedLiteralLengths: [Int] = (0..<288).map { $0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8 }
    static let fixedDistanceLengths = [Int](repeating: 5, count: 30)
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    // MARK: - Blocks

    struct BitWriter {
        var out: [UInt8]
        var buffer: UInt64 = 0
        var count = 0

        @inline(__always) mutating func put(_ value: Int, _ bits: Int) {
            buffer |= UInt64(value) << UInt64(count)
            count += bits
            if count >= 32 {
                let b = UInt32(truncatingIfNeeded: buffer)
                out.append(UInt8(b & 0xFF)); out.append(UInt8((b >> 8) & 0xFF))
                out.append(UInt8((b >> 16) & 0xFF)); out.append(UInt8(b >> 24))
                buffer >>= 32
                count -= 32
            }
        }

        /// Pads to a whole byte.
        mutating func flush() {
            while count > 0 {
                out.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                count = max(0, count - 8)
            }
            buffer = 0
        }
    }

    enum BlockWriter {
        /// Writes one block of `symbols` (the LZ77 form of `raw`) the cheapest of three ways.
        static func write(_ symbols: [UInt32], raw: UnsafeBufferPointer<UInt8>, last: Bool, to w: inout BitWriter) {
            var litFreq = [Int](repeating: 0, count: 286), distFreq = [Int](repeating: 0, count: 30)
            symbols.withUnsafeBufferPointer { s in
                litFreq.withUnsafeMutableBufferPointer { lf in
                    distFreq.withUnsafeMutableBufferPointer { df in
                        let lcode = Deflate.lengthCode
                        for v in s {
                            if v & Deflate.matchFlag == 0 {
                                lf[Int(v)] += 1
                            } else {
                                lf[257 + Int(lcode[Int(v & 0xFF)])] += 1
                                df[Deflate.distanceCode(Int((v >> 8) & 0x7FFF))] += 1
                            }
                        }
                    }
                }
            }
            litFreq[256] = 1
            let litLengths = Deflate.codeLengths(litFreq, limit: 15)
            let distLengths = Deflate.codeLengths(distFreq, limit: 15)
            let header = DynamicHeader(literal: litLengths, distance: distLengths)
            func dataBits(_ ll: [Int], _ dl: [Int]) -> Int {
                var bits = 0
                for (i, f) in litFreq.enumerated() where f > 0 {
                    bits += f * (ll[i] + (i >= 257 ? Deflate.lengthExtra[i - 257] : 0))
                }
                for (i, f) in distFreq.enumerated() where f > 0 { bits += f * (dl[i] + Deflate.distanceExtra[i]) }
                return bits
            }
            let dynamicBits = 3 + header.bits + dataBits(litLengths, distLengths)
            let fixedBits = 3 + dataBits(Deflate.fixedLiteralLengths, Deflate.fixedDistanceLengths)
            let storedBits = (raw.count + 65534) / 65535 * 40 + 8 * raw.count + 7
            if storedBits < min(dynamicBits, fixedBits) {
                stored(raw, last: last, to: &w)
            } else if fixedBits <= dynamicBits {
                w.put(last ? 1 : 0, 1); w.put(1, 2)
                emit(symbols, Deflate.fixedLiteralLengths, Deflate.fixedDistanceLengths, to: &w)
            } else {
                w.put(last ? 1 : 0, 1); w.put(2, 2)
                header.write(to: &w)
                emit(symbols, litLengths, distLengths, to: &w)
            }
        }

        static func stored(_ raw: UnsafeBufferPointer<UInt8>, last: Bool, to w: inout BitWriter) {
            var i = 0
            repeat {
                let n = min(65535, raw.count - i)
                w.put(last && i + n == raw.count ? 1 : 0, 1); w.put(0, 2)
                w.flush()
                w.out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
                w.out.append(contentsOf: UnsafeBufferPointer(rebasing: raw[i..<(i + n)]))
                i += n
            } while i < raw.count
        }

        static func emit(_ symbols: [UInt32], _ litLengths: [Int], _ distLengths: [Int], to w: inout BitWriter) {
            let litCodes = Deflate.codes(litLengths), distCodes = Deflate.codes(distLengths)
            let lcode = Deflate.lengthCode
            let lbase = Deflate.lengthBase, lextra = Deflate.lengthExtra
            let dbase = Deflate.distanceBase, dextra = Deflate.distanceExtra
            for v in symbols {
                if v & Deflate.matchFlag == 0 {
                    let s = Int(v)
                    w.put(Int(litCodes[s]), litLengths[s])
                } else {
                    let l = Int(v & 0xFF), d = Int((v >> 8) & 0x7FFF)
                    let lc = Int(lcode[l])
                    w.put(Int(litCodes[257 + lc]), litLengths[257 + lc])
                    if lextra[lc] > 0 { w.put(l + 3 - lbase[lc], lextra[lc]) }
                    let dc = Deflate.distanceCode(d)
                    w.put(Int(distCodes[dc]), distLengths[dc])
                    if dextra[dc] > 0 { w.put(d + 1 - dbase[dc], dextra[dc]) }
                }
            }
            w.put(Int(litCodes[256]), litLengths[256])
        }
    }

    /// A dynamic block's header: the code lengths, run-length coded (16, 17, 18) with a code of their own.
    struct DynamicHeader {
        let literalCount: Int, distanceCount: Int
        /// The run-length symbols with their extra bits' value.
        var runs: [(symbol: Int, extra: Int)] = []
        var codeLengthLengths: [Int] = []
        var codeLengthCount = 4

        init(literal: [Int], distance: [Int]) {
            literalCount = max(257, (literal.lastIndex { $0 > 0 } ?? 0) + 1)
            distanceCount = max(1, (distance.lastIndex { $0 > 0 } ?? 0) + 1)
            let all = Array(literal[0..<literalCount]) + Array(distance[0..<distanceCount])
            var i = 0
            while i < all.count {
                let l = all[i]
                var run = 1
                while i + run < all.count && all[i + run] == l { run += 1 }
                i += run
                if l == 0 {
                    while run >= 11 { let r = min(run, 138); runs.append((18, r - 11)); run -= r }
                    if run >= 3 { runs.append((17, run - 3)); run = 0 }
                    while run > 0 { runs.append((0, 0)); run -= 1 }
                } else {
                    runs.append((l, 0)); run -= 1
                    while run >= 3 { let r = min(run, 6); runs.append((16, r - 3)); run -= r }
                    while run > 0 { runs.append((l, 0)); run -= 1 }
                }
            }
            var freq = [Int](repeating: 0, count: 19)
            for r in runs { freq[r.symbol] += 1 }
            codeLengthLengths = Deflate.codeLengths(freq, limit: 7)
            codeLengthCount = max(4, (Deflate.codeLengthOrder.lastIndex { codeLengthLengths[$0] > 0 } ?? 0) + 1)
        }

        var bits: Int {
            var b = 5 + 5 + 4 + 3 * codeLengthCount
            for r in runs { b += codeLengthLengths[r.symbol] + Self.extraBits(r.symbol) }
            return b
        }

        /// The extra bits after a run-length symbol: 16 repeats 3-6 times, 17 and 18 zeros 3-10 and 11-138 times.
        static func extraBits(_ symbol: Int) -> Int { symbol == 16 ? 2 : symbol == 17 ? 3 : symbol == 18 ? 7 : 0 }

        func write(to w: inout BitWriter) {
            w.put(literalCount - 257, 5); w.put(distanceCount - 1, 5); w.put(codeLengthCount - 4, 4)
            for k in 0..<codeLengthCount { w.put(codeLengthLengths[Deflate.codeLengthOrder[k]], 3) }
            let codes = Deflate.codes(codeLengthLengths)
            for r in runs {
                w.put(Int(codes[r.symbol]), codeLengthLengths[r.symbol])
                if Self.extraBits(r.symbol) > 0 { w.put(r.extra, Self.extraBits(r.symbol)) }
            }
        }
    }
}
