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
    /// The oldest metadata parser that reads every field used (`min_parser_version`).
    public var minParserVersion: String?

    public struct AssociatedFile: Sendable, Equatable {
        public enum FileType: UInt8, Sendable {
            case unknown = 0, descriptions, tensorAxisLabels, tensorValueLabels, tensorAxisScoreCalibration, vocabulary,
                scannIndexFile
        }
        public var name: String
        public var description: String?
        public var type: FileType
        public var locale: String?

        public init(name: String, description: String? = nil, type: FileType, locale: String? = nil) {
            self.name = name; self.description = description; self.type = type; self.locale = locale
        }
    }

    /// What a tensor holds (`ContentProperties`): the union's type, and the color space of images.
    public enum ContentProperties: Sendable, Equatable {
        case feature
        case image(colorSpace: UInt8)
        /// Another kind, kept by its union type (3: bounding boxes, 4: audio).
        case other(UInt8)
    }

    public struct Normalization: Sendable, Equatable {
        public var mean: [Float]
        public var std: [Float]
        public init(mean: [Float], std: [Float]) { self.mean = mean; self.std = std }
    }

    public struct TensorMetadata: Sendable, Equatable {
        public var name: String?
        public var description: String?
        public var normalization: Normalization?
        public var associatedFiles: [AssociatedFile]
        public var statsMin: [Float]
        public var statsMax: [Float]
        public var content: ContentProperties?
        /// `ScoreThresholdingOptions.global_score_threshold`, when the tensor has that process unit.
        public var scoreThreshold: Float?
        /// `ScoreCalibrationOptions`, when the tensor has that process unit (its sigmoids are in the associated
        /// file of type `tensorAxisScoreCalibration`).
        public var scoreCalibration: ScoreCalibrationOptions?

        public init(name: String? = nil, description: String? = nil, normalization: Normalization? = nil,
                    associatedFiles: [AssociatedFile] = [], statsMin: [Float] = [], statsMax: [Float] = [],
                    content: ContentProperties? = nil, scoreThreshold: Float? = nil,
                    scoreCalibration: ScoreCalibrationOptions? = nil) {
            self.name = name; self.description = description; self.normalization = normalization
            self.associatedFiles = associatedFiles; self.statsMin = statsMin; self.statsMax = statsMax
            self.content = content; self.scoreThreshold = scoreThreshold; self.scoreCalibration = scoreCalibration
        }
    }

    /// The schema's `ScoreCalibrationOptions`: the transformation applied before each category's sigmoid
    /// (`ScoreTransformationType`: IDENTITY 0, LOG 1, INVERSE_LOGISTIC 2) and the score given where a sigmoid
    /// does not apply.
    public struct ScoreCalibrationOptions: Sendable, Equatable {
        public var transformation: UInt8
        public var defaultScore: Float
        public init(transformation: UInt8 = 0, defaultScore: Float = 0) {
            self.transformation = transformation; self.defaultScore = defaultScore
        }
    }

    /// A named blob a task defines for itself (`CustomMetadata`), such as the image segmenter's
    /// `SEGMENTER_METADATA` (an `ImageSegmenterOptions` flatbuffer).
    public struct CustomMetadata: Sendable, Equatable {
        public var name: String
        public var data: [UInt8]
        public init(name: String, data: [UInt8]) { self.name = name; self.data = data }
    }

    public struct SubgraphMetadata: Sendable, Equatable {
        public var name: String?
        public var inputs: [TensorMetadata]
        public var outputs: [TensorMetadata]
        public var associatedFiles: [AssociatedFile]
        public var customMetadata: [CustomMetadata]

        public init(name: String? = nil, inputs: [TensorMetadata], outputs: [TensorMetadata],
                    associatedFiles: [AssociatedFile] = [], customMetadata: [CustomMetadata] = []) {
            self.name = name; self.inputs = inputs; self.outputs = outputs; self.associatedFiles = associatedFiles
            self.customMetadata = customMetadata
        }
    }

    public init(name: String? = nil, description: String? = nil, version: String? = nil, author: String? = nil,
                license: String? = nil, associatedFiles: [AssociatedFile] = [], subgraphs: [SubgraphMetadata],
                minParserVersion: String? = nil) {
        self.name = name; self.description = description; self.version = version; self.author = author
        self.license = license; self.associatedFiles = associatedFiles; self.subgraphs = subgraphs
        self.minParserVersion = minParserVersion
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
                             associatedFiles: try sg.tables(4, what: "AssociatedFile").map(Self.file),
                             customMetadata: try sg.tables(9, what: "CustomMetadata").map(Self.custom))
        }
        self.minParserVersion = try root.string(7)
    }

    static func file(_ t: FlatTable) throws -> AssociatedFile {
        AssociatedFile(name: try t.string(0) ?? "", description: try t.string(1),
                       type: AssociatedFile.FileType(rawValue: try t.u8(2)) ?? .unknown, locale: try t.string(3))
    }

    static func custom(_ t: FlatTable) throws -> CustomMetadata {
        var data: [UInt8] = []
        if let v = try t.vector(1, elementSize: 1, what: "CustomMetadata data") {
            data = Array(t.view.bytes[v.start..<(v.start + v.count)])
        }
        return CustomMetadata(name: try t.string(0) ?? "", data: data)
    }

    static func tensor(_ t: FlatTable) throws -> TensorMetadata {
        var normalization: Normalization? = nil
        var threshold: Float? = nil
        var calibration: ScoreCalibrationOptions? = nil
        for unit in try t.tables(4, what: "ProcessUnit") {
            let type = try unit.u8(0)
            if type == 1, let options = try unit.table(1, what: "NormalizationOptions") {
                normalization = Normalization(mean: try options.floats(0, what: "mean") ?? [],
                                              std: try options.floats(1, what: "std") ?? [])
            } else if type == 2, calibration == nil {  // ScoreCalibrationOptions; the first one counts
                let options = try unit.table(1, what: "ScoreCalibrationOptions")
                calibration = ScoreCalibrationOptions(transformation: try options?.u8(0) ?? 0,
                                                      defaultScore: try options?.f32(1) ?? 0)
            } else if type == 3, threshold == nil {  // ScoreThresholdingOptions; the first one counts
                threshold = try unit.table(1, what: "ScoreThresholdingOptions")?.f32(0) ?? 0
            }
        }
        var content: ContentProperties? = nil
        if let c = try t.table(3, what: "Content") {
            switch try c.u8(0) {
            case 0: content = nil
            case 1: content = .feature
            case 2: content = .image(colorSpace: try c.table(1, what: "ImageProperties")?.u8(0) ?? 0)
            case let other: content = .other(other)
            }
        }
        var statsMin: [Float] = [], statsMax: [Float] = []
        if let stats = try t.table(5, what: "Stats") {
            statsMax = try stats.floats(0, what: "stats max") ?? []
            statsMin = try stats.floats(1, what: "stats min") ?? []
        }
        return TensorMetadata(name: try t.string(0), description: try t.string(1), normalization: normalization,
                              associatedFiles: try t.tables(6, what: "AssociatedFile").map(Self.file),
                              statsMin: statsMin, statsMax: statsMax, content: content, scoreThreshold: threshold,
                              scoreCalibration: calibration)
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
