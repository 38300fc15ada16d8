/// A parsed `.tflite` model: subgraphs, tensors, operators with their builtin
/// options, buffers, model metadata and the zip of associated files appended to it.
///
/// The reader follows tensorflow/lite/schema/schema.fbs field by field; every index
/// read from the file is checked against the table it refers to.
public struct TFLiteModel: Sendable {
    /// The name used in error messages: a path, or `bundle.task:member`.
    public let name: String
    public let version: UInt32
    public let description: String?
    public let subgraphs: [Subgraph]
    /// Byte ranges of the buffers within `bytes`; an empty range means "no data".
    public let buffers: [Range<Int>]
    /// Model-level metadata entries (name → buffer index), e.g. `TFLITE_METADATA`.
    public let metadataBuffers: [(name: String, buffer: Int)]
    /// The whole file.
    public let file: ByteView

    public struct Subgraph: Sendable {
        public let name: String?
        public let tensors: [Tensor]
        public let inputs: [Int]
        public let outputs: [Int]
        public let operators: [Operator]
    }

    public struct Tensor: Sendable {
        public let index: Int
        public let name: String
        public let shape: [Int]
        public let type: TensorType
        /// Index into `buffers`; buffer 0 is the empty sentinel.
        public let buffer: Int
        public let isVariable: Bool
        public let sparsity: SparsityParameters?
        /// True when the tensor carries quantization scales (none of our models do on float paths).
        public let isQuantized: Bool
        /// The affine quantization (`real = scale * (q - zeroPoint)`), when the tensor carries scales.
        public let quantization: Quantization?
        public var elementCount: Int { shape.reduce(1, *) }
    }

    /// A tensor's affine quantization parameters (schema.fbs `QuantizationParameters`): one scale and zero point
    /// for the whole tensor, or one per slice along `quantizedDimension` (per-channel weights).
    public struct Quantization: Sendable, Equatable {
        public let scales: [Float]
        public let zeroPoints: [Int64]
        public let quantizedDimension: Int

        public init(scales: [Float], zeroPoints: [Int64], quantizedDimension: Int = 0) {
            self.scales = scales; self.zeroPoints = zeroPoints; self.quantizedDimension = quantizedDimension
        }
    }

    public struct SparsityParameters: Sendable {
        public let traversalOrder: [Int]
        public let blockMap: [Int]
        public let dimensionMetadata: [DimensionMetadata]
    }

    public struct DimensionMetadata: Sendable {
        public enum Format: UInt8, Sendable { case dense = 0, sparseCSR = 1 }
        public let format: Format
        public let denseSize: Int
        public let arraySegments: [Int]
        public let arrayIndices: [Int]
    }

    public struct Operator: Sendable {
        public let index: Int
        public let opcode: BuiltinOperator
        public let customCode: String?
        /// A custom operator's options: bytes its kernel reads as it likes (MediaPipe's ops: a C struct).
        public let customOptions: [UInt8]
        public let version: Int
        /// Tensor indices; -1 marks an omitted optional input.
        public let inputs: [Int]
        public let outputs: [Int]
        public let options: OperatorOptions
    }

    /// Parses a `.tflite` file held in memory.
    public init(bytes: [UInt8], name: String) throws {
        let view = ByteView(bytes: bytes, name: name)
        if bytes.count < 8 {
            throw FormatError.malformed(file: name,
                                        reason: "file of \(bytes.count) bytes is too short for a TFLite model")
        }
        let ident = String(decoding: bytes[4..<8], as: UTF8.self)
        if ident != "TFL3" {
            throw FormatError.malformed(file: name, reason: "not a TFLite flatbuffer (file identifier is "
                                                            + "'\(ident.filter { $0.isASCII && !$0.isNewline })', "
                                                            + "expected 'TFL3')")
        }
        let root = try FlatTable.root(view, what: "Model")
        self.name = name
        self.file = view
        self.version = try root.u32(0)
        self.description = try root.string(3)

        // Buffers.
        var buffers: [Range<Int>] = []
        for (i, b) in try root.tables(4, what: "Buffer").enumerated() {
            if let data = try b.vector(0, elementSize: 1, what: "Buffer \(i) data") {
                buffers.append(data.start..<(data.start + data.count))
            } else {
                let offset = try b.u64(1), size = try b.u64(2)
                if offset > 1 {
                    guard offset < UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                        throw FormatError.malformed(file: name, reason: "Buffer \(i) at offset \(offset) with size "
                                + "\(size) is outside the file of \(bytes.count) bytes")
                    }
                    buffers.append(Int(offset)..<Int(offset + size))
                } else {
                    buffers.append(0..<0)
                }
            }
        }
        self.buffers = buffers

        // Operator codes.
        struct Code { let op: BuiltinOperator; let custom: String?; let version: Int }
        var codes: [Code] = []
        for c in try root.tables(1, what: "OperatorCode") {
            let deprecated = Int32(try c.i8(0))
            let builtin = try c.i32(3)
            // Since schema v3a the real code lives in `builtin_code`; old files only set the deprecated byte.
            codes.append(Code(op: BuiltinOperator(rawValue: max(deprecated, builtin)),
                              custom: try c.string(1), version: Int(try c.i32(2, default: 1))))
        }

        var subgraphs: [Subgraph] = []
        for (si, sg) in try root.tables(2, what: "SubGraph").enumerated() {
            var tensors: [Tensor] = []
            for (ti, t) in try sg.tables(0, what: "Tensor").enumerated() {
                let shape = try (t.int32s(0, what: "Tensor \(ti) shape") ?? []).map(Int.init)
                if let bad = shape.first(where: { $0 < 0 }) {
                    throw FormatError.unsupported(file: name,
                        reason: "tensor \(ti) has a dynamic dimension (\(bad)) in its shape \(shape)")
                }
                var count = 1
                for d in shape {
                    let (p, o) = count.multipliedReportingOverflow(by: d)
                    if o || p > (1 << 31) {
                        throw FormatError.malformed(file: name, reason: "tensor \(ti) shape \(shape) is too large")
                    }
                    count = p
                }
                let rawType = try t.u8(1)
                guard let type = TensorType(rawValue: rawType) else {
                    throw FormatError.unsupported(file: name, reason: "tensor \(ti) has unknown type code \(rawType)")
                }
                let buffer = Int(try t.u32(2))
                if buffer >= max(buffers.count, 1) {
                    throw FormatError.malformed(file: name,
                        reason: "tensor \(ti) refers to buffer \(buffer) but the model has \(buffers.count) buffers")
                }
                var quantization: Quantization? = nil
                if let q = try t.table(4, what: "Tensor \(ti) quantization"),
                   let scales = try q.floats(2, what: "tensor \(ti) quantization scale"), !scales.isEmpty {
                    let zeroPoints = try q.int64s(3, what: "tensor \(ti) quantization zero point") ?? []
                    quantization = Quantization(scales: scales, zeroPoints: zeroPoints,
                                                quantizedDimension: Int(try q.i32(6)))
                }
                var sparsity: SparsityParameters? = nil
                if let sp = try t.table(6, what: "Tensor \(ti) sparsity") {
                    sparsity = try Self.parseSparsity(sp, tensor: ti, file: name)
                }
                tensors.append(Tensor(index: ti, name: try t.string(3) ?? "", shape: shape, type: type,
                                      buffer: buffer, isVariable: try t.bool(5), sparsity: sparsity,
                                      isQuantized: quantization != nil, quantization: quantization))
            }
            func checkIndices(_ list: [Int32], _ what: String, allowOptional: Bool) throws -> [Int] {
                try list.map { v in
                    let i = Int(v)
                    if (allowOptional && i == -1) || (i >= 0 && i < tensors.count) { return i }
                    throw FormatError.malformed(file: name,
                        reason: "\(what) refers to tensor \(i) but subgraph \(si) has \(tensors.count) tensors")
                }
            }
            let inputs = try checkIndices(try sg.int32s(1, what: "SubGraph inputs") ?? [], "subgraph input",
                                          allowOptional: false)
            let outputs = try checkIndices(try sg.int32s(2, what: "SubGraph outputs") ?? [], "subgraph output",
                                           allowOptional: false)
            var ops: [Operator] = []
            for (oi, o) in try sg.tables(3, what: "Operator").enumerated() {
                let ci = Int(try o.u32(0))
                guard ci < codes.count else {
                    throw FormatError.malformed(file: name, reason: "operator \(oi) uses opcode index \(ci) but the "
                                                                    + "model has \(codes.count) operator codes")
                }
                let code = codes[ci]
                let ins = try checkIndices(try o.int32s(1, what: "Operator \(oi) inputs") ?? [],
                                           "operator \(oi) (\(code.op)) input", allowOptional: true)
                let outs = try checkIndices(try o.int32s(2, what: "Operator \(oi) outputs") ?? [],
                                            "operator \(oi) (\(code.op)) output", allowOptional: false)
                let optionsType = try o.u8(3)
                let optionsTable = try o.table(4, what: "Operator \(oi) (\(code.op)) options")
                let options = try OperatorOptions.parse(op: code.op, type: optionsType, table: optionsTable,
                                                        what: "operator \(oi) (\(code.op))", file: name)
                var customOptions: [UInt8] = []
                if let v = try o.vector(5, elementSize: 1, what: "Operator \(oi) custom options") {
                    customOptions = Array(view.bytes[v.start..<(v.start + v.count)])
                }
                ops.append(Operator(index: oi, opcode: code.op, customCode: code.custom, customOptions: customOptions,
                                    version: code.version,
                                    inputs: ins, outputs: outs, options: options))
            }
            subgraphs.append(Subgraph(name: try sg.string(4), tensors: tensors, inputs: inputs, outputs: outputs,
                                      operators: ops))
        }
        if subgraphs.isEmpty { throw FormatError.malformed(file: name, reason: "model has no subgraph") }
        self.subgraphs = subgraphs

        var metadata: [(String, Int)] = []
        for m in try root.tables(6, what: "Metadata") {
            let b = Int(try m.u32(1))
            guard b < buffers.count else {
                throw FormatError.malformed(file: name,
                    reason: "metadata entry refers to buffer \(b) but the model has \(buffers.count) buffers")
            }
            metadata.append((try m.string(0) ?? "", b))
        }
        self.metadataBuffers = metadata
    }

    static func parseSparsity(_ sp: FlatTable, tensor: Int, file: String) throws -> SparsityParameters {
        let traversal = try (sp.int32s(0, what: "traversal_order") ?? []).map(Int.init)
        let blockMap = try (sp.int32s(1, what: "block_map") ?? []).map(Int.init)
        var dims: [DimensionMetadata] = []
        for (di, d) in try sp.tables(2, what: "Tensor \(tensor) dim_metadata").enumerated() {
            let rawFormat = try d.u8(0)
            guard let format = DimensionMetadata.Format(rawValue: rawFormat) else {
                throw FormatError.unsupported(file: file,
                    reason: "tensor \(tensor) dimension \(di) has unknown sparse format \(rawFormat)")
            }
            func indexVector(_ typeField: Int, _ valueField: Int, _ what: String) throws -> [Int] {
                let type = try d.u8(typeField)
                guard let table = try d.table(valueField, what: "\(what) of tensor \(tensor)") else { return [] }
                switch type {
                case 0: return []
                case 1: return try (table.int32s(0, what: what) ?? []).map(Int.init)
                case 2:
                    guard let v = try table.vector(0, elementSize: 2, what: what) else { return [] }
                    return try (0..<v.count).map { Int(try table.view.u16(v.elementPosition($0))) }
                case 3:
                    guard let v = try table.vector(0, elementSize: 1, what: what) else { return [] }
                    return try (0..<v.count).map { Int(try table.view.u8(v.elementPosition($0))) }
                default:
                    throw FormatError.unsupported(file: file,
                        reason: "tensor \(tensor) \(what) has unknown index vector type \(type)")
                }
            }
            dims.append(DimensionMetadata(format: format, denseSize: Int(try d.i32(1)),
                                          arraySegments: try indexVector(2, 3, "array_segments"),
                                          arrayIndices: try indexVector(4, 5, "array_indices")))
        }
        return SparsityParameters(traversalOrder: traversal, blockMap: blockMap, dimensionMetadata: dims)
    }

    /// The bytes of buffer `index` (empty for buffer 0 and for tensors without data).
    public func bufferBytes(_ index: Int) -> ArraySlice<UInt8> {
        guard index >= 0 && index < buffers.count else { return [] }
        return file.bytes[buffers[index]]
    }

    /// The constant data of a tensor, or nil when it has none.
    public func constantData(of tensor: Tensor) -> ArraySlice<UInt8>? {
        let data = bufferBytes(tensor.buffer)
        return data.isEmpty ? nil : data
    }

    /// The raw `TFLITE_METADATA` flatbuffer, when the model has one.
    public var metadataFlatbuffer: [UInt8]? {
        guard let entry = metadataBuffers.first(where: { $0.name == "TFLITE_METADATA" }) else { return nil }
        let data = bufferBytes(entry.buffer)
        return data.isEmpty ? nil : Array(data)
    }

    /// Parsed TFLite metadata (name, normalization, associated file names), when present.
    public func metadata() throws -> ModelMetadata? {
        guard let fb = metadataFlatbuffer else { return nil }
        return try ModelMetadata(bytes: fb, name: "\(name) (TFLITE_METADATA)")
    }

    /// The associated files (labels.txt and the like) stored in the zip appended to the model.
    public func associatedFiles() throws -> [String: [UInt8]] {
        guard let zip = try ZipArchive(view: file, allowMissing: true) else { return [:] }
        var files: [String: [UInt8]] = [:]
        for entry in zip.entries { files[entry.name] = try zip.data(of: entry) }
        return files
    }
}
