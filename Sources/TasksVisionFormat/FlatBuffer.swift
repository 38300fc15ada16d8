/// Minimal, bounds-checked FlatBuffers reading: tables, vtables, vectors and strings.
///
/// Written from the FlatBuffers binary format description: a table starts with an
/// `soffset` to its vtable; the vtable lists `uint16` field offsets; references are
/// `uoffset`s relative to where they are stored. All reads go through `ByteView`.
public struct FlatTable {
    public let view: ByteView
    public let position: Int
    let vtable: Int
    let vtableSize: Int
    /// What this table is, for error messages ("Tensor 12").
    public let what: String

    /// The root table of a flatbuffer.
    public static func root(_ view: ByteView, what: String) throws -> FlatTable {
        let offset = Int(try view.u32(0, "root offset of \(what)"))
        return try FlatTable(view: view, position: offset, what: what)
    }

    public init(view: ByteView, position: Int, what: String) throws {
        self.view = view
        self.position = position
        self.what = what
        let soffset = Int(try view.i32(position, "\(what) table"))
        let vt = position - soffset
        let size = Int(try view.u16(vt, "\(what) vtable"))
        if size < 4 || size % 2 != 0 {
            throw FormatError.malformed(file: view.name, reason: "\(what) vtable at \(vt) has invalid size \(size)")
        }
        try view.check(vt, size, "\(what) vtable")
        self.vtable = vt
        self.vtableSize = size
    }

    /// The absolute position of field `index`, or nil when the field is absent.
    public func fieldPosition(_ index: Int) throws -> Int? {
        let entry = 4 + 2 * index
        if entry + 2 > vtableSize { return nil }
        let rel = Int(try view.u16(vtable + entry, "\(what) vtable entry"))
        if rel == 0 { return nil }
        return position + rel
    }

    public func u8(_ index: Int, default value: UInt8 = 0) throws -> UInt8 {
        guard let p = try fieldPosition(index) else { return value }
        return try view.u8(p, "\(what) field \(index)")
    }
    public func bool(_ index: Int, default value: Bool = false) throws -> Bool {
        guard let p = try fieldPosition(index) else { return value }
        return try view.u8(p, "\(what) field \(index)") != 0
    }
    public func i8(_ index: Int, default value: Int8 = 0) throws -> Int8 {
        guard let p = try fieldPosition(index) else { return value }
        return Int8(bitPattern: try view.u8(p, "\(what) field \(index)"))
    }
    public func u16(_ index: Int, default value: UInt16 = 0) throws -> UInt16 {
        guard let p = try fieldPosition(index) else { return value }
        return try view.u16(p, "\(what) field \(index)")
    }
    public func i32(_ index: Int, default value: Int32 = 0) throws -> Int32 {
        guard let p = try fieldPosition(index) else { return value }
        return try view.i32(p, "\(what) field \(index)")
    }
    public func u32(_ index: Int, default value: UInt32 = 0) throws -> UInt32 {
        guard let p = try fieldPosition(index) else { return value }
        return try view.u32(p, "\(what) field \(index)")
    }
    public func u64(_ index: Int, default value: UInt64 = 0) throws -> UInt64 {
        guard let p = try fieldPosition(index) else { return value }
        return try view.u64(p, "\(what) field \(index)")
    }
    public func f32(_ index: Int, default value: Float = 0) throws -> Float {
        guard let p = try fieldPosition(index) else { return value }
        return try view.f32(p, "\(what) field \(index)")
    }

    /// Follows the `uoffset` stored at field `index`.
    func reference(_ index: Int) throws -> Int? {
        guard let p = try fieldPosition(index) else { return nil }
        let rel = Int(try view.u32(p, "\(what) field \(index) reference"))
        let target = p + rel
        try view.check(target, 4, "\(what) field \(index) target")
        return target
    }

    public func table(_ index: Int, what name: String) throws -> FlatTable? {
        guard let target = try reference(index) else { return nil }
        return try FlatTable(view: view, position: target, what: name)
    }

    public func vector(_ index: Int, elementSize: Int, what name: String) throws -> FlatVector? {
        guard let target = try reference(index) else { return nil }
        return try FlatVector(view: view, position: target, elementSize: elementSize, what: name)
    }

    public func string(_ index: Int) throws -> String? {
        guard let target = try reference(index) else { return nil }
        return try FlatVector.string(view, at: target, what: "\(what) field \(index) string")
    }

    // Convenience readers for vectors of scalars.
    public func int32s(_ index: Int, what name: String) throws -> [Int32]? {
        guard let v = try vector(index, elementSize: 4, what: name) else { return nil }
        return try (0..<v.count).map { try view.i32(v.elementPosition($0)) }
    }
    public func floats(_ index: Int, what name: String) throws -> [Float]? {
        guard let v = try vector(index, elementSize: 4, what: name) else { return nil }
        return try (0..<v.count).map { try view.f32(v.elementPosition($0)) }
    }
    public func int64s(_ index: Int, what name: String) throws -> [Int64]? {
        guard let v = try vector(index, elementSize: 8, what: name) else { return nil }
        return try (0..<v.count).map { try view.i64(v.elementPosition($0)) }
    }
    public func tables(_ index: Int, what name: String) throws -> [FlatTable] {
        guard let v = try vector(index, elementSize: 4, what: name) else { return [] }
        return try (0..<v.count).map { try v.table($0, what: "\(name) \($0)") }
    }
    public func strings(_ index: Int, what name: String) throws -> [String] {
        guard let v = try vector(index, elementSize: 4, what: name) else { return [] }
        return try (0..<v.count).map { i in
            let p = v.elementPosition(i)
            let target = p + Int(try view.u32(p, "\(name) \(i)"))
            return try FlatVector.string(view, at: target, what: "\(name) \(i)")
        }
    }
}

/// A FlatBuffers vector: a `uint32` length followed by its elements.
public struct FlatVector {
    public let view: ByteView
    /// Position of the first element.
    public let start: Int
    public let count: Int
    public let elementSize: Int

    init(view: ByteView, position: Int, elementSize: Int, what: String) throws {
        let n = Int(try view.u32(position, "\(what) length"))
        let (bytes, overflow) = n.multipliedReportingOverflow(by: elementSize)
        if overflow { throw FormatError.malformed(file: view.name, reason: "\(what) length \(n) overflows") }
        try view.check(position + 4, bytes, "\(what) (\(n) elements)")
        self.view = view
        self.start = position + 4
        self.count = n
        self.elementSize = elementSize
    }

    public func elementPosition(_ i: Int) -> Int { start + i * elementSize }

    public func table(_ i: Int, what: String) throws -> FlatTable {
        let p = elementPosition(i)
        let target = p + Int(try view.u32(p, what))
        return try FlatTable(view: view, position: target, what: what)
    }

    static func string(_ view: ByteView, at position: Int, what: String) throws -> String {
        let n = Int(try view.u32(position, "\(what) length"))
        try view.check(position + 4, n, what)
        return String(decoding: view.bytes[(position + 4)..<(position + 4 + n)], as: UTF8.self)
    }
}
