extension ZipArchive {
    /// The bytes of an entry that is stored or deflated (method 8), as in the zips of Python
    /// wheels, checked against its CRC-32. `ZipArchive.data(of:)` refuses deflated entries, as
    /// MediaPipe does for bundles; this is for other zips.
    public func decompressedData(of entry: Entry) throws -> [UInt8] {
        if entry.method == 0 { return try data(of: entry) }
        let what = "zip entry '\(entry.name)'"
        guard entry.method == 8 else {
            throw FormatError.unsupported(file: view.name, reason: "\(what) is compressed with method \(entry.method)"
                                          + "; only stored and deflated entries are supported")
        }
        guard entry.uncompressedSize <= ModelAsset.maximumFileSize else {
            throw FormatError.unsupported(file: view.name, reason: "\(what) of \(entry.uncompressedSize) bytes is"
                                          + " larger than the \(ModelAsset.maximumFileSize)-byte limit")
        }
        let compressed = try view.slice(try dataOffset(of: entry, what), entry.compressedSize, what)
        // Inflate reads raw DEFLATE data behind a zlib header (CM 8, 32K window, no dictionary)
        // and stops at the final block, so the four bytes standing for the Adler-32 trailer are not read.
        let output: [UInt8]
        do {
            output = try Inflate.zlib([0x78, 0x01] + compressed + [0, 0, 0, 0], limit: entry.uncompressedSize)
        } catch let failure as Inflate.Failure {
            throw FormatError.malformed(file: view.name, reason: "\(what) cannot be inflated: \(failure.reason)")
        }
        guard output.count == entry.uncompressedSize else {
            throw FormatError.malformed(file: view.name, reason: "\(what) inflates to \(output.count) bytes,"
                                        + " not the \(entry.uncompressedSize) its directory entry gives")
        }
        try checkCRC(output, entry, what)
        return output
    }
}
