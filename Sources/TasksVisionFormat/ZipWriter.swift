/// Writes zip archives of stored (uncompressed) entries in the layout MediaPipe's
/// `create_model_asset_bundle` gives `.task` bundles, byte for byte as Python's `zipfile` writes
/// them with `tools/fetch_models.py`'s settings, so a bundle's checksum is reproducible:
///
/// - before each local header, 1 to 4 zero bytes so that the entry's data start 4-byte aligned
///   (MediaPipe's `AlignZipFile`: a multiple of 4 still gets 4 bytes);
/// - every entry dated 1980-01-01 00:00:00, made by Unix (3), version 2.0, mode 0644;
/// - no extra fields, no comments, no data descriptors; names flagged UTF-8 only if not ASCII.
///
/// The result is read back by `ZipArchive` and `TaskBundle`.
public enum ZipWriter {
    /// The largest entry or archive a zip without zip64 records can hold.
    static let limit = Int(UInt32.max) - 1

    /// The archive holding `members` (name and bytes) in order.
    public static func storedArchive(_ members: [(name: String, data: [UInt8])]) throws -> [UInt8] {
        guard members.count < 0xFFFF else {
            throw FormatError.unsupported(file: "zip archive", reason: "\(members.count) entries need zip64 records")
        }
        var out: [UInt8] = []
        out.reserveCapacity(members.reduce(22) { $0 + $1.data.count + 2 * $1.name.utf8.count + 84 })
        var central: [UInt8] = []
        for member in members {
            let name = Array(member.name.utf8)
            let flags: UInt16 = name.allSatisfy { $0 < 0x80 } ? 0 : 0x800
            let crc = CRC32.checksum(member.data)
            guard member.data.count <= limit, name.count <= 0xFFFF else {
                throw FormatError.unsupported(file: member.name, reason: "an entry this large needs zip64 records")
            }
            let padding = 4 - (out.count + 30 + name.count) % 4
            out += [UInt8](repeating: 0, count: padding)
            let headerOffset = out.count
            guard headerOffset <= limit else {
                throw FormatError.unsupported(file: member.name, reason: "an archive this large needs zip64 records")
            }
            // Local file header.
            append32(&out, 0x0403_4b50)
            append16(&out, 20)  // version needed to extract
            append16(&out, flags)
            append16(&out, 0)  // stored
            append16(&out, dosTime)
            append16(&out, dosDate)
            append32(&out, crc)
            append32(&out, UInt32(member.data.count))
            append32(&out, UInt32(member.data.count))
            append16(&out, UInt16(name.count))
            append16(&out, 0)  // extra field length
            out += name
            out += member.data
            // Its central directory entry.
            append32(&central, 0x0201_4b50)
            central += [20, 3]  // made by version 2.0, Unix
            append16(&central, 20)
            append16(&central, flags)
            append16(&central, 0)
            append16(&central, dosTime)
            append16(&central, dosDate)
            append32(&central, crc)
            append32(&central, UInt32(member.data.count))
            append32(&central, UInt32(member.data.count))
            append16(&central, UInt16(name.count))
            append16(&central, 0)  // extra field length
            append16(&central, 0)  // comment length
            append16(&central, 0)  // disk number
            append16(&central, 0)  // internal attributes
            append32(&central, 0o644 << 16)  // external attributes: a regular file, rw-r--r--
            append32(&central, UInt32(headerOffset))
            central += name
        }
        let centralOffset = out.count
        guard centralOffset + central.count <= limit else {
            throw FormatError.unsupported(file: "zip archive", reason: "an archive this large needs zip64 records")
        }
        out += central
        append32(&out, 0x0605_4b50)
        append16(&out, 0)  // this disk
        append16(&out, 0)  // disk of the central directory
        append16(&out, UInt16(members.count))
        append16(&out, UInt16(members.count))
        append32(&out, UInt32(central.count))
        append32(&out, UInt32(centralOffset))
        append16(&out, 0)  // comment length
        return out
    }

    /// 00:00:00 and 1980-01-01 in MS-DOS format.
    static let dosTime: UInt16 = 0
    static let dosDate: UInt16 = 1 << 5 | 1

    private static func append16(_ out: inout [UInt8], _ v: UInt16) {
        out.append(UInt8(truncatingIfNeeded: v))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    private static func append32(_ out: inout [UInt8], _ v: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }
}
