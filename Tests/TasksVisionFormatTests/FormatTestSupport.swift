import Foundation
import XCTest

enum FormatTestPaths {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let models = root + "/Models"

    static func model(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = models + "/" + name
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("missing \(path): run tools/setup.sh first", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }
}

/// Writes a stored (uncompressed) zip, optionally with a deflate method flag or a bad CRC.
func makeZip(_ entries: [(String, [UInt8])], method: UInt16 = 0, corruptCRC: Bool = false,
             prefix: [UInt8] = []) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    var out = prefix
    var central: [UInt8] = []
    for (name, data) in entries {
        let offset = UInt32(out.count - prefix.count)
        var crc = CRC32Reference.checksum(data)
        if corruptCRC { crc ^= 1 }
        let nameBytes = Array(name.utf8)
        out += le32(0x0403_4b50) + le16(20) + le16(0) + le16(Int(method)) + le16(0) + le16(0) + le32(crc)
            + le32(UInt32(data.count)) + le32(UInt32(data.count)) + le16(nameBytes.count) + le16(0) + nameBytes + data
        central += le32(0x0201_4b50) + le16(20) + le16(20) + le16(0) + le16(Int(method)) + le16(0) + le16(0) + le32(crc)
            + le32(UInt32(data.count)) + le32(UInt32(data.count)) + le16(nameBytes.count) + le16(0) + le16(0)
            + le16(0) + le16(0)
            + le32(0) + le32(offset) + nameBytes
    }
    let cdOffset = UInt32(out.count - prefix.count)
    out += central
    out += le32(0x0605_4b50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count)
        + le32(UInt32(central.count)) + le32(cdOffset) + le16(0)
    return out
}

/// An independent bitwise CRC-32, to check the table-driven one.
enum CRC32Reference {
    static func checksum(_ data: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in data {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        }
        return ~c
    }
}
