import Foundation

/// Little-endian arrays in base64, as the reference scripts store them.
public enum Base64Array {
    public static func bytes(_ text: String) -> [UInt8] { Data(base64Encoded: text).map(Array.init) ?? [] }

    public static func float32(_ text: String) -> [Float] {
        let b = bytes(text)
        return stride(from: 0, to: b.count - 3, by: 4).map { i in
            Float(bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)
        }
    }

    public static func uint16(_ text: String) -> [UInt16] {
        let b = bytes(text)
        return stride(from: 0, to: b.count - 1, by: 2).map { UInt16(b[$0]) | UInt16(b[$0 + 1]) << 8 }
    }

    public static func int8(_ text: String) -> [Int8] { bytes(text).map { Int8(bitPattern: $0) } }
}
