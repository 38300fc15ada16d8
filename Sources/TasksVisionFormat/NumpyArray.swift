import Foundation

/// Reading and writing NumPy `.npy` files (format versions 1-3, C order), used by
/// `vision model run` and the test fixtures.
public struct NumpyArray: Sendable, Equatable {
    public enum DType: String, Sendable {
        case float32 = "<f4", float64 = "<f8", uint8 = "|u1", int8 = "|i1", int32 = "<i4", int64 = "<i8"
    }
    public var shape: [Int]
    public var dtype: DType
    /// Raw little-endian element bytes.
    public var data: [UInt8]

    public init(shape: [Int], dtype: DType, data: [UInt8]) {
        self.shape = shape
        self.dtype = dtype
        self.data = data
    }

    public init(shape: [Int], floats: [Float]) {
        self.shape = shape
        self.dtype = .float32
        self.data = floats.withUnsafeBytes { Array($0) }
    }

    public var elementCount: Int { shape.reduce(1, *) }

    /// The elements converted to Float.
    public func floats() -> [Float] {
        let n = elementCount
        return data.withUnsafeBytes { raw -> [Float] in
            switch dtype {
            case .float32: return (0..<n).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
            }
            case .float64: return (0..<n).map {
                Float(Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * $0,
                                                                                as: UInt64.self))))
            }
            case .uint8: return (0..<n).map { Float(raw[$0]) }
            case .int8: return (0..<n).map { Float(Int8(bitPattern: raw[$0])) }
            case .int32: return (0..<n).map {
                Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)))
            }
            case .int64: return (0..<n).map {
                Float(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * $0, as: Int64.self)))
            }
            }
        }
    }

    public init(bytes: [UInt8], name: String) throws {
        let view = ByteView(bytes: bytes, name: name)
        guard bytes.count >= 10, bytes[0] == 0x93, String(decoding: bytes[1..<6], as: UTF8.self) == "NUMPY" else {
            throw FormatError.malformed(file: name, reason: "not a .npy file (missing \\x93NUMPY magic)")
        }
        let major = bytes[6]
        let headerLength: Int, headerStart: Int
        if major == 1 {
            headerLength = Int(try view.u16(8)); headerStart = 10
        } else if major == 2 || major == 3 {
            headerLength = Int(try view.u32(8)); headerStart = 12
        } else {
            throw FormatError.unsupported(file: name, reason: ".npy format version \(major)")
        }
        let header = String(decoding: try view.slice(headerStart, headerLength, ".npy header"), as: UTF8.self)
        func value(_ key: String) -> String? {
            guard let r = header.range(of: "'\(key)':") else { return nil }
            return String(header[r.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        guard let descrPart = value("descr"), let q1 = descrPart.firstIndex(of: "'") else {
            throw FormatError.malformed(file: name, reason: ".npy header has no descr")
        }
        let afterQ1 = descrPart.index(after: q1)
        guard let q2 = descrPart[afterQ1...].firstIndex(of: "'") else {
            throw FormatError.malformed(file: name, reason: ".npy header descr is not quoted")
        }
        var descr = String(descrPart[afterQ1..<q2])
        if descr == "<u1" { descr = "|u1" }
        if descr == "<i1" { descr = "|i1" }
        guard let dtype = DType(rawValue: descr) else {
            throw FormatError.unsupported(file: name,
                reason: ".npy dtype '\(descr)' (supported: float32, float64, uint8, int8, int32, int64, little-endian)")
        }
        if let fo = value("fortran_order"), fo.hasPrefix("True") {
            throw FormatError.unsupported(file: name, reason: ".npy in Fortran order")
        }
        guard let shapePart = value("shape"), let open = shapePart.firstIndex(of: "("),
            let close = shapePart.firstIndex(of: ")") else {
            throw FormatError.malformed(file: name, reason: ".npy header has no shape")
        }
        let dims = shapePart[shapePart.index(after: open)..<close].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var shape: [Int] = []
        for d in dims {
            guard let v = Int(d), v >= 0 else {
                throw FormatError.malformed(file: name, reason: ".npy shape entry '\(d)'")
            }
            shape.append(v)
        }
        var count = 1
        for d in shape {
            let (p, o) = count.multipliedReportingOverflow(by: d)
            if o || p > (1 << 31) {
                throw FormatError.malformed(file: name, reason: ".npy shape \(shape) is too large")
            }
            count = p
        }
        let elementSize: Int
        switch dtype {
        case .float32, .int32: elementSize = 4
        case .float64, .int64: elementSize = 8
        case .uint8, .int8: elementSize = 1
        }
        let start = headerStart + headerLength
        self.data = try view.slice(start, count * elementSize, ".npy data for shape \(shape)")
        self.shape = shape
        self.dtype = dtype
    }

    public static func read(_ path: String) throws -> NumpyArray {
        try NumpyArray(bytes: try ModelAsset.readFile(path), name: path)
    }

    /// The file bytes (format version 1.0).
    public func encoded() -> [UInt8] {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(dtype.rawValue)', 'fortran_order': False, 'shape': \(shapeText), }"
        let total = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - total % 64) % 64) + "\n"
        var out: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0]
        let n = UInt16(header.utf8.count)
        out += [UInt8(n & 0xFF), UInt8(n >> 8)]
        out += Array(header.utf8)
        out += data
        return out
    }

    public func write(_ path: String) throws {
        let url = URL(fileURLWithPath: path)
        try Data(encoded()).write(to: url)
    }
}
