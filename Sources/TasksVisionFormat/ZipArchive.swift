/// A reader of zip archives whose entries are stored (not compressed): `.task`
/// bundles and the associated-file zips appended to `.tflite` models.
///
/// Entries are found from the end-of-central-directory record, so an archive may
/// be preceded by other data (a model flatbuffer, or the zero padding that the
/// official bundle writer inserts for alignment). Compressed entries are listed
/// but refused when read, as MediaPipe refuses deflated bundles.
public struct ZipArchive: Sendable {
    public struct Entry: Sendable {
        public let name: String
        public let method: UInt16
        public let crc32: UInt32
        public let compressedSize: Int
        public let uncompressedSize: Int
        /// Offset of the local file header (already corrected for data before the archive).
        public let localHeaderOffset: Int
    }

    public let view: ByteView
    public let entries: [Entry]

    /// Opens an archive; with `allowMissing`, returns nil when there is no zip at all.
    public init?(view: ByteView, allowMissing: Bool) throws {
        let bytes = view.bytes
        let eocdSize = 22
        guard bytes.count >= eocdSize else {
            if allowMissing { return nil }
            throw FormatError.malformed(file: view.name,
                                        reason: "file of \(bytes.count) bytes is too short to be a zip archive")
        }
        // The EOCD record is at the end, followed by a comment of at most 65535 bytes.
        var eocd = -1
        var p = bytes.count - eocdSize
        let lowest = max(0, bytes.count - eocdSize - 65535)
        while p >= lowest {
            if bytes[p] == 0x50 && bytes[p + 1] == 0x4b && bytes[p + 2] == 0x05 && bytes[p + 3] == 0x06 {
                let commentLength = Int(try view.u16(p + 20))
                if p + eocdSize + commentLength == bytes.count { eocd = p; break }
            }
            p -= 1
        }
        if eocd < 0 {
            if allowMissing { return nil }
            throw FormatError.malformed(file: view.name,
                reason: "no zip end-of-central-directory record found (not a zip archive, or truncated)")
        }
        let count = Int(try view.u16(eocd + 10))
        let cdSize = Int(try view.u32(eocd + 12))
        let cdOffset = Int(try view.u32(eocd + 16))
        if count == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF {
            throw FormatError.unsupported(file: view.name, reason: "zip64 archives are not supported")
        }
        // Data before the archive shifts every offset; the central directory ends where the EOCD starts.
        let shift = eocd - cdSize - cdOffset
        if shift < 0 {
            throw FormatError.malformed(file: view.name,
                reason: "zip central directory (offset \(cdOffset), size \(cdSize)) overlaps its end record at \(eocd)")
        }
        var entries: [Entry] = []
        var q = cdOffset + shift
        for i in 0..<count {
            guard try view.u32(q, "zip central directory entry \(i)") == 0x0201_4b50 else {
                throw FormatError.malformed(file: view.name,
                                            reason: "zip central directory entry \(i) at \(q) has a bad signature")
            }
            let method = try view.u16(q + 10)
            let crc = try view.u32(q + 16)
            let csize = Int(try view.u32(q + 20))
            let usize = Int(try view.u32(q + 24))
            let nameLength = Int(try view.u16(q + 28))
            let extraLength = Int(try view.u16(q + 30))
            let commentLength = Int(try view.u16(q + 32))
            let local = Int(try view.u32(q + 42))
            let nameBytes = try view.slice(q + 46, nameLength, "zip entry \(i) name")
            let name = String(decoding: nameBytes, as: UTF8.self)
            entries.append(Entry(name: name, method: method, crc32: crc, compressedSize: csize,
                                 uncompressedSize: usize, localHeaderOffset: local + shift))
            q += 46 + nameLength + extraLength + commentLength
        }
        self.view = view
        self.entries = entries
    }

    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// The bytes of a stored entry, checked against its CRC-32.
    public func data(of entry: Entry) throws -> [UInt8] {
        let what = "zip entry '\(entry.name)'"
        if entry.method != 0 {
            let method = entry.method == 8 ? "deflated" : "compressed with method \(entry.method)"
            throw FormatError.unsupported(file: view.name, reason: "\(what) is \(method); only stored (uncompressed) "
                                                                   + "entries are supported, as in MediaPipe "
                                                                   + "(\"Expected uncompressed zip archive\")")
        }
        let start = try dataOffset(of: entry, what)
        if entry.compressedSize != entry.uncompressedSize {
            throw FormatError.malformed(file: view.name,
                reason: "\(what) is stored but its sizes differ (\(entry.compressedSize) vs \(entry.uncompressedSize))")
        }
        let data = try view.slice(start, entry.compressedSize, what)
        try checkCRC(data, entry, what)
        return data
    }

    /// Where an entry's (compressed) bytes start: after its local header, whose signature is checked.
    func dataOffset(of entry: Entry, _ what: String) throws -> Int {
        let h = entry.localHeaderOffset
        guard try view.u32(h, "\(what) local header") == 0x0403_4b50 else {
            throw FormatError.malformed(file: view.name, reason: "\(what) local header at \(h) has a bad signature")
        }
        let nameLength = Int(try view.u16(h + 26))
        let extraLength = Int(try view.u16(h + 28))
        return h + 30 + nameLength + extraLength
    }

    /// Refuses an entry's bytes whose CRC-32 is not the one its directory entry gives.
    func checkCRC(_ data: [UInt8], _ entry: Entry, _ what: String) throws {
        let crc = CRC32.checksum(data)
        if crc != entry.crc32 {
            throw FormatError.malformed(file: view.name, reason: "\(what) fails its CRC-32 check (stored "
                                                                 + "\(String(entry.crc32, radix: 16)), computed "
                                                                 + "\(String(crc, radix: 16)))")
        }
    }
}

/// CRC-32 (IEEE 802.3, as used by zip).
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func checksum(_ data: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in data { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }
}
