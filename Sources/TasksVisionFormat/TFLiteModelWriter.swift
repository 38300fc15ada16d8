/// Writes `.tflite` flatbuffers (tensorflow/lite/schema/schema.fbs, version 3): models of dense
/// tensors (float, or quantized with their scales and zero points) and builtin operators, the model metadata buffers, and the zip of associated
/// files appended after the flatbuffer as TFLite Support's metadata populator appends it.
///
/// Operator options are written from `OperatorOptions`, so an operator the reader parses can be
/// written once its case is in `OperatorOptions.fields(of:_:)`. `TFLiteModel` reads the result back.
public struct TFLiteModelWriter: Sendable {
    public struct Tensor: Sendable, Equatable {
        public var name: String
        public var shape: [Int]
        public var type: TensorType
        /// Constant data (little-endian), or nil for an activation.
        public var data: [UInt8]?
        public var isVariable: Bool
        /// Scales and zero points of a quantized tensor.
        public var quantization: TFLiteModel.Quantization?

        public init(name: String, shape: [Int], type: TensorType = .float32, data: [UInt8]? = nil,
                    isVariable: Bool = false, quantization: TFLiteModel.Quantization? = nil) {
            self.name = name; self.shape = shape; self.type = type; self.data = data; self.isVariable = isVariable
            self.quantization = quantization
        }

        /// A float32 constant.
        public init(name: String, shape: [Int], floats: [Float]) {
            self.init(name: name, shape: shape, type: .float32,
                      data: floats.flatMap { FlatBytes.le($0.bitPattern) })
        }
    }

    public struct Operator: Sendable {
        public var opcode: BuiltinOperator
        public var version: Int
        /// Tensor indices; -1 marks an omitted optional input.
        public var inputs: [Int]
        public var outputs: [Int]
        public var options: OperatorOptions

        public init(_ opcode: BuiltinOperator, version: Int = 1, inputs: [Int], outputs: [Int],
                    options: OperatorOptions = .none) {
            self.opcode = opcode; self.version = version; self.inputs = inputs; self.outputs = outputs
            self.options = options
        }
    }

    public struct Subgraph: Sendable {
        public var name: String?
        public var tensors: [Tensor]
        public var inputs: [Int]
        public var outputs: [Int]
        public var operators: [Operator]

        public init(name: String? = nil, tensors: [Tensor], inputs: [Int], outputs: [Int], operators: [Operator]) {
            self.name = name; self.tensors = tensors; self.inputs = inputs; self.outputs = outputs
            self.operators = operators
        }
    }

    public var description: String?
    public var subgraphs: [Subgraph]
    /// Model-level metadata buffers by name (`TFLITE_METADATA`, `min_runtime_version`).
    public var metadata: [(name: String, data: [UInt8])]
    /// Files zipped (stored) after the flatbuffer, such as `labels.txt`.
    public var associatedFiles: [(name: String, data: [UInt8])]

    public init(description: String? = nil, subgraphs: [Subgraph], metadata: [(name: String, data: [UInt8])] = [],
                associatedFiles: [(name: String, data: [UInt8])] = []) {
        self.description = description; self.subgraphs = subgraphs; self.metadata = metadata
        self.associatedFiles = associatedFiles
    }

    /// The writer's description of a parsed model, for rewriting it. Throws `unsupported` for what
    /// the writer cannot express: sparse tensors, custom operators, offset buffers.
    public init(model: TFLiteModel) throws {
        var subgraphs: [Subgraph] = []
        for (si, sg) in model.subgraphs.enumerated() {
            let tensors = try sg.tensors.map { t -> Tensor in
                if t.sparsity != nil {
                    throw FormatError.unsupported(file: model.name, reason: "subgraph \(si) tensor \(t.index) "
                        + "(\(t.name)) is sparse; the writer writes dense tensors")
                }
                let data = model.constantData(of: t).map(Array.init)
                return Tensor(name: t.name, shape: t.shape, type: t.type, data: data, isVariable: t.isVariable,
                              quantization: t.quantization)
            }
            let ops = try sg.operators.map { o -> Operator in
                if o.opcode == .custom {
                    throw FormatError.unsupported(file: model.name, reason: "operator \(o.index) is the custom "
                        + "operator '\(o.customCode ?? "")'; the writer writes builtin operators")
                }
                return Operator(o.opcode, version: o.version, inputs: o.inputs, outputs: o.outputs,
                                options: o.options)
            }
            subgraphs.append(Subgraph(name: sg.name, tensors: tensors, inputs: sg.inputs, outputs: sg.outputs,
                                      operators: ops))
        }
        let files = try model.associatedFiles()
        self.init(description: model.description, subgraphs: subgraphs,
                  metadata: model.metadataBuffers.map { ($0.name, Array(model.bufferBytes($0.buffer))) },
                  associatedFiles: files.keys.sorted().compactMap { k in files[k].map { (k, $0) } })
    }

    /// The `.tflite` file: the flatbuffer, then the zip of associated files if there are any.
    public func serialized() throws -> [UInt8] {
        var buffers: [FlatObject] = [FlatObject()]  // buffer 0: the empty sentinel
        func addBuffer(_ data: [UInt8]) -> UInt32 {
            var b = FlatObject()
            b.set(0, bytes: data, alignment: 16)
            buffers.append(b)
            return UInt32(buffers.count - 1)
        }
        struct Code: Hashable { let op: Int32; let version: Int }
        var codes: [Code] = []
        var codeIndex: [Code: Int] = [:]
        var subgraphTables: [FlatObject] = []
        for (si, sg) in subgraphs.enumerated() {
            let what = "subgraph \(si)"
            func check(_ list: [Int], _ name: String, optional: Bool) throws -> [Int32] {
                try list.map { i in
                    guard (optional && i == -1) || sg.tensors.indices.contains(i) else {
                        throw FormatError.malformed(file: "model being written",
                            reason: "\(what) \(name) refers to tensor \(i) of \(sg.tensors.count)")
                    }
                    return Int32(i)
                }
            }
            var tensors: [FlatObject] = []
            for (ti, t) in sg.tensors.enumerated() {
                guard t.shape.allSatisfy({ $0 >= 0 && $0 <= Int(Int32.max) }) else {
                    throw FormatError.malformed(file: "model being written",
                                                reason: "\(what) tensor \(ti) (\(t.name)) has shape \(t.shape)")
                }
                var o = FlatObject()
                o.set(0, int32s: t.shape.map { Int32(clamping: $0) })
                o.set(1, u8: t.type.rawValue)
                if let data = t.data {
                    let expected = t.shape.reduce(1, *) * t.type.byteSize
                    guard data.count == expected else {
                        throw FormatError.malformed(file: "model being written", reason: "\(what) tensor \(ti) "
                            + "(\(t.name)) of shape \(t.shape) has \(data.count) bytes of data, expected \(expected)")
                    }
                    o.set(2, u32: addBuffer(data))
                } else {
                    o.set(2, u32: 0)
                }
                o.set(3, string: t.name)
                if let q = t.quantization {
                    var qo = FlatObject()
                    qo.set(2, floats: q.scales)
                    qo.set(3, int64s: q.zeroPoints)
                    if q.quantizedDimension != 0 { qo.set(6, i32: Int32(clamping: q.quantizedDimension)) }
                    o.set(4, table: qo)
                }
                if t.isVariable { o.set(5, bool: true) }
                tensors.append(o)
            }
            var operators: [FlatObject] = []
            for (oi, op) in sg.operators.enumerated() {
                let code = Code(op: op.opcode.rawValue, version: op.version)
                let index: Int
                if let i = codeIndex[code] { index = i } else {
                    index = codes.count; codes.append(code); codeIndex[code] = index
                }
                var o = FlatObject()
                o.set(0, u32: UInt32(index))
                o.set(1, int32s: try check(op.inputs, "operator \(oi) input", optional: true))
                o.set(2, int32s: try check(op.outputs, "operator \(oi) output", optional: false))
                if let (type, table) = try OperatorOptions.encode(op.options, op.opcode,
                                                                  what: "\(what) operator \(oi)") {
                    o.set(3, u8: type)
                    o.set(4, table: table)
                }
                operators.append(o)
            }
            var s = FlatObject()
            s.set(0, tables: tensors)
            s.set(1, int32s: try check(sg.inputs, "input", optional: false))
            s.set(2, int32s: try check(sg.outputs, "output", optional: false))
            s.set(3, tables: operators)
            s.set(4, string: sg.name)
            subgraphTables.append(s)
        }
        var metadataTables: [FlatObject] = []
        for m in metadata {
            var t = FlatObject()
            t.set(0, string: m.name)
            t.set(1, u32: addBuffer(m.data))
            metadataTables.append(t)
        }
        var root = FlatObject()
        root.set(0, u32: 3)
        root.set(1, tables: codes.map { c in
            var o = FlatObject()
            o.set(0, i8: Int8(clamping: c.op))  // deprecated_builtin_code: 127 marks "see builtin_code"
            o.set(2, i32: Int32(c.version))
            o.set(3, i32: c.op)
            return o
        })
        root.set(2, tables: subgraphTables)
        root.set(3, string: description)
        root.set(4, tables: buffers)
        if !metadataTables.isEmpty { root.set(6, tables: metadataTables) }
        var bytes = try FlatBufferWriter.serialize(root: root, identifier: "TFL3")
        if !associatedFiles.isEmpty { bytes += try ZipWriter.storedArchive(associatedFiles) }
        return bytes
    }
}
