/// Writing FlatBuffers: a tree of tables, vectors and strings, serialized front to back.
///
/// The writer lays each object out before the objects it refers to, so every `uoffset` points
/// forward as the format requires, and each table's vtable just before the table (a positive
/// `soffset`). Scalars are aligned to their size and vectors to their element alignment, relative
/// to the start of the buffer. Vtables are not shared: files are a little larger than flatc's,
/// but the layout is simple and the bytes depend only on the tree. `FlatTable` reads the result.
public struct FlatObject: Sendable, Equatable {
    /// A field of a table: inline little-endian bytes, or a reference to another object.
    public enum Field: Sendable, Equatable {
        case scalar([UInt8])
        case reference(FlatValue)
    }

    /// Fields by their index in the schema (union fields take two: the type, then the value).
    public private(set) var fields: [Int: Field] = [:]

    public init() {}

    public mutating func set(_ index: Int, _ field: Field) { fields[index] = field }
    public mutating func set(_ index: Int, u8 value: UInt8) { fields[index] = .scalar([value]) }
    public mutating func set(_ index: Int, i8 value: Int8) { set(index, u8: UInt8(bitPattern: value)) }
    public mutating func set(_ index: Int, bool value: Bool) { set(index, u8: value ? 1 : 0) }
    public mutating func set(_ index: Int, u16 value: UInt16) { fields[index] = .scalar(FlatBytes.le(value)) }
    public mutating func set(_ index: Int, i32 value: Int32) { fields[index] = .scalar(FlatBytes.le(value)) }
    public mutating func set(_ index: Int, u32 value: UInt32) { fields[index] = .scalar(FlatBytes.le(value)) }
    public mutating func set(_ index: Int, u64 value: UInt64) { fields[index] = .scalar(FlatBytes.le(value)) }
    public mutating func set(_ index: Int, f32 value: Float) {
        fields[index] = .scalar(FlatBytes.le(value.bitPattern))
    }
    public mutating func set(_ index: Int, string value: String?) {
        if let value { fields[index] = .reference(.string(value)) }
    }
    public mutating func set(_ index: Int, table value: FlatObject?) {
        if let value { fields[index] = .reference(.table(value)) }
    }
    public mutating func set(_ index: Int, tables value: [FlatObject]) { fields[index] = .reference(.tables(value)) }
    public mutating func set(_ index: Int, strings value: [String]) { fields[index] = .reference(.strings(value)) }
    public mutating func set(_ index: Int, int32s value: [Int32]) {
        fields[index] = .reference(.scalars(value.flatMap(FlatBytes.le), elementSize: 4, alignment: 4))
    }
    public mutating func set(_ index: Int, floats value: [Float]) {
        fields[index] = .reference(.scalars(value.flatMap { FlatBytes.le($0.bitPattern) }, elementSize: 4,
                                            alignment: 4))
    }
    public mutating func set(_ index: Int, int64s value: [Int64]) {
        fields[index] = .reference(.scalars(value.flatMap(FlatBytes.le), elementSize: 8, alignment: 8))
    }
    /// A `[ubyte]` vector whose data start at a multiple of `alignment` (TFLite buffers: 16).
    public mutating func set(_ index: Int, bytes value: [UInt8], alignment: Int = 1) {
        fields[index] = .reference(.scalars(value, elementSize: 1, alignment: alignment))
    }
}

/// An object a table field refers to.
public indirect enum FlatValue: Sendable, Equatable {
    case table(FlatObject)
    case string(String)
    /// A vector of scalars given as their little-endian bytes.
    case scalars([UInt8], elementSize: Int, alignment: Int)
    case tables([FlatObject])
    case strings([String])
}

/// Little-endian encodings of scalars.
enum FlatBytes {
    static func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) }
    }
}

/// Serializes a `FlatObject` tree into a flatbuffer.
public enum FlatBufferWriter {
    /// The flatbuffer whose root table is `root`, with the 4-character file identifier
    /// (`TFL3`, `M001`) after the root offset when given.
    public static func serialize(root: FlatObject, identifier: String? = nil) throws -> [UInt8] {
        var w = Writer()
        w.out = [0, 0, 0, 0]
        if let identifier {
            let id = Array(identifier.utf8)
            guard id.count == 4 else {
                throw FormatError.unsupported(file: "flatbuffer", reason: "file identifier '\(identifier)' is not "
                                                                         + "4 bytes")
            }
            w.out += id
        }
        let rootPosition = try w.table(root)
        w.patch(0, UInt32(truncatingIfNeeded: rootPosition))
        guard w.out.count <= Int(Int32.max) else {
            throw FormatError.unsupported(file: "flatbuffer", reason: "\(w.out.count) bytes exceed the 2 GiB limit")
        }
        return w.out
    }

    struct Writer {
        var out: [UInt8] = []

        mutating func pad(to alignment: Int) {
            while out.count % alignment != 0 { out.append(0) }
        }

        mutating func patch(_ at: Int, _ v: UInt32) {
            for k in 0..<4 { out[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
        }

        /// Writes a reference's target and points the `uoffset` at `slot` to it.
        mutating func resolve(_ slot: Int, _ value: FlatValue) throws {
            let target = try self.value(value)
            patch(slot, UInt32(truncatingIfNeeded: target - slot))  // sizes are checked at the end
        }

        mutating func table(_ object: FlatObject) throws -> Int {
            // Inline layout: the soffset, then fields largest first, each aligned to its size.
            let indices = object.fields.keys.sorted()
            func size(_ i: Int) -> Int {
                if case let .scalar(b)? = object.fields[i] { return b.count }
                return 4
            }
            let order = indices.sorted { (size($0), -$0) > (size($1), -$1) }
            var offsets: [Int: Int] = [:]
            var cursor = 4
            var alignment = 4
            for i in order {
                let s = size(i)
                guard [1, 2, 4, 8].contains(s) else {
                    throw FormatError.unsupported(file: "flatbuffer", reason: "field \(i) has a \(s)-byte scalar")
                }
                while cursor % s != 0 { cursor += 1 }
                offsets[i] = cursor
                cursor += s
                alignment = max(alignment, s)
            }
            let tableSize = cursor
            let slots = (indices.last ?? -1) + 1
            guard 4 + 2 * slots <= 0xFFFF, tableSize <= 0xFFFF else {
                throw FormatError.unsupported(file: "flatbuffer", reason: "table too large for a vtable")
            }
            // The vtable, then padding so that the table starts aligned.
            pad(to: 2)
            let vtable = out.count
            out += FlatBytes.le(UInt16(4 + 2 * slots))
            out += FlatBytes.le(UInt16(tableSize))
            for i in 0..<slots { out += FlatBytes.le(UInt16(offsets[i] ?? 0)) }
            pad(to: alignment)
            let start = out.count
            out += FlatBytes.le(Int32(start - vtable))
            out += [UInt8](repeating: 0, count: tableSize - 4)
            var references: [(slot: Int, value: FlatValue)] = []
            for i in indices {
                guard let field = object.fields[i], let offset = offsets[i] else { continue }
                switch field {
                case let .scalar(bytes): out.replaceSubrange((start + offset)..<(start + offset + bytes.count),
                                                            with: bytes)
                case let .reference(value): references.append((start + offset, value))
                }
            }
            for r in references { try resolve(r.slot, r.value) }
            return start
        }

        mutating func value(_ value: FlatValue) throws -> Int {
            switch value {
            case let .table(object):
                return try table(object)
            case let .string(s):
                pad(to: 4)
                let start = out.count
                let bytes = Array(s.utf8)
                out += FlatBytes.le(UInt32(bytes.count))
                out += bytes
                out.append(0)
                return start
            case let .scalars(bytes, elementSize, alignment):
                let a = max(4, alignment, elementSize)
                pad(to: 4)
                while (out.count + 4) % a != 0 { out += [0, 0, 0, 0] }
                let start = out.count
                out += FlatBytes.le(UInt32(bytes.count / max(1, elementSize)))
                out += bytes
                return start
            case let .tables(objects):
                pad(to: 4)
                let start = out.count
                out += FlatBytes.le(UInt32(objects.count))
                out += [UInt8](repeating: 0, count: 4 * objects.count)
                for (i, o) in objects.enumerated() { try resolve(start + 4 + 4 * i, .table(o)) }
                return start
            case let .strings(strings):
                pad(to: 4)
                let start = out.count
                out += FlatBytes.le(UInt32(strings.count))
                out += [UInt8](repeating: 0, count: 4 * strings.count)
                for (i, s) in strings.enumerated() { try resolve(start + 4 + 4 * i, .string(s)) }
                return start
            }
        }
    }
}
