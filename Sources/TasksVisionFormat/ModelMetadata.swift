/// TFLite model metadata (`TFLITE_METADATA`, tensorflow/tflite-support
/// metadata_schema.fbs): model name, per-tensor normalization and associated files.
public struct ModelMetadata: Sendable, Equatable {
    public var name: String?
    public var description: String?
    public var version: String?
    public var author: String?
    public var license: String?
    public var associatedFiles: [AssociatedFile]
    public var subgraphs: [SubgraphMetadata]

    public struct AssociatedFile: Sendable, Equatable {
        public enum FileType: UInt8, Sendable {
            case unknown = 0, descriptions, tensorAxisLabels, tensorValueLabels, tensorAxisScoreCalibration, vocabulary,
                scannIndexFile
        }
        public var name: String
        public var description: String?
        public var type: FileType
        public var locale: String?
    }

    public struct Normalization: Sendable, Equatable {
        public var mean: [Float]
        public var std: [Float]
    }

    public struct TensorMetadata: Sendable, Equatable {
        public var name: String?
        public var description: String?
        public var normalization: Normalization?
        public var associatedFiles: [AssociatedFile]
        public var statsMin: [Float]
        public var statsMax: [Float]
    }

    public struct SubgraphMetadata: Sendable, Equatable {
        public var name: String?
        public var inputs: [TensorMetadata]
        public var outputs: [TensorMetadata]
        public var associatedFiles: [AssociatedFile]
    }

    /// Parses a metadata flatbuffer (the bytes of the `TFLITE_METADATA` buffer).
    public init(bytes: [UInt8], name: String) throws {
        let view = ByteView(bytes: bytes, name: name)
        if bytes.count < 8 {
            throw FormatError.malformed(file: name, reason: "metadata buffer of \(bytes.count) bytes is too short")
        }
        let root = try FlatTable.root(view, what: "ModelMetadata")
        self.name = try root.string(0)
        self.description = try root.string(1)
        self.version = try root.string(2)
        self.author = try root.string(4)
        self.license = try root.string(5)
        self.associatedFiles = try root.tables(6, what: "AssociatedFile").map(Self.file)
        self.subgraphs = try root.tables(3, what: "SubGraphMetadata").map { sg in
            SubgraphMetadata(name: try sg.string(0),
                             inputs: try sg.tables(2, what: "input TensorMetadata").map(Self.tensor),
                             outputs: try sg.tables(3, what: "output TensorMetadata").map(Self.tensor),
                             associatedFiles: try sg.tables(4, what: "AssociatedFile").map(Self.file))
        }
    }

    static func file(_ t: FlatTable) throws -> AssociatedFile {
        AssociatedFile(name: try t.string(0) ?? "", description: try t.string(1),
                       type: AssociatedFile.FileType(rawValue: try t.u8(2)) ?? .unknown, locale: try t.string(3))
    }

    static func tensor(_ t: FlatTable) throws -> TensorMetadata {
        var normalization: Normalization? = nil
        for unit in try t.tables(4, what: "ProcessUnit") where try unit.u8(0) == 1 {  // NormalizationOptions
            if let options = try unit.table(1, what: "NormalizationOptions") {
                normalization = Normalization(mean: try options.floats(0, what: "mean") ?? [],
                                              std: try options.floats(1, what: "std") ?? [])
            }
        }
        var statsMin: [Float] = [], statsMax: [Float] = []
        if let stats = try t.table(5, what: "Stats") {
            statsMax = try stats.floats(0, what: "stats max") ?? []
            statsMin = try stats.floats(1, what: "stats min") ?? []
        }
        return TensorMetadata(name: try t.string(0), description: try t.string(1), normalization: normalization,
                              associatedFiles: try t.tables(6, what: "AssociatedFile").map(Self.file),
                              statsMin: statsMin, statsMax: statsMax)
    }

    /// Normalization of the first input tensor, when the metadata declares one.
    public var inputNormalization: Normalization? { subgraphs.first?.inputs.first?.normalization }

    /// Every associated file name declared anywhere in the metadata.
    public var allAssociatedFileNames: [String] {
        var names = associatedFiles.map(\.name)
        for sg in subgraphs {
            names += sg.associatedFiles.map(\.name)
            for t in sg.inputs + sg.outputs { names += t.associatedFiles.map(\.name) }
        }
        return names
    }
}
