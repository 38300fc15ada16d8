/// A read-only view of a file's bytes with bounds-checked little-endian reads.
///
/// Every read checks its range against the buffer and throws `FormatError.malformed`
/// naming the file and the offset; nothing here can trap on hostile input.
public struct ByteView: Sendable {
    public let bytes: [UInt8]
    /// The name used in error messages (a path, or `bundle.task:member`).
    public let name: String

    public init(bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }

    public var count: Int { bytes.count }

    @inline(__always)
    func check(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws {
        if offset < 0 || length < 0 || offset > bytes.count || length > bytes.count - offset {
            throw FormatError.malformed(
                file: name,
                reason: "\(what()) at offset \(offset) (length \(length)) is outside the file of \(bytes.count) bytes")
        }
    }

    @inline(__always)
    func readLE<T: FixedWidthInteger>(_ offset: Int, _ type: T.Type, _ what: @autoclosure () -> String) throws -> T {
        try check(offset, MemoryLayout<T>.size, what())
        var value: T = 0
        for i in 0..<MemoryLayout<T>.size {
            value |= T(truncatingIfNeeded: bytes[offset + i]) << (8 * i)
        }
        return value
    }

    public func u8(_ offset: Int, _ what: @autoclosure () -> String = "byte") throws -> UInt8 {
        try check(offset, 1, what())
        return bytes[offset]
    }
    public func u16(_ offset: Int, _ what: @autoclosure () -> String = "uint16") throws -> UInt16 {
        try readLE(offset, UInt16.self, what())
    }
    public func u32(_ offset: Int, _ what: @autoclosure () -> String = "uint32") throws -> UInt32 {
        try readLE(offset, UInt32.self, what())
    }
    public func i32(_ offset: Int, _ what: @autoclosure () -> String = "int32") throws -> Int32 {
        try readLE(offset, Int32.self, what())
    }
    public func u64(_ offset: Int, _ what: @autoclosure () -> String = "uint64") throws -> UInt64 {
        try readLE(offset, UInt64.self, what())
    }
    public func i64(_ offset: Int, _ what: @autoclosure () -> String = "int64") throws -> Int64 {
        try readLE(offset, Int64.self, what())
    }
    public func f32(_ offset: Int, _ what: @autoclosure () -> String = "float") throws -> Float {
        Float(bitPattern: try u32(offset, what()))
    }

    /// A copy of `length` bytes at `offset`.
    public func slice(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String = "data") throws -> [UInt8] {
        try check(offset, length, what())
        return Array(bytes[offset..<(offset + length)])
    }
}
