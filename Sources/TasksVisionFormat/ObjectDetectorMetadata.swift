/// An object detector's `DETECTOR_METADATA` custom metadata (mediapipe/tasks/metadata/
/// object_detector_metadata_schema.fbs, root `ObjectDetectorOptions`): the fixed SSD anchors and the
/// options that decode the raw box and score tensors of a model without non-maximum suppression inside.
public struct ObjectDetectorMetadata: Sendable, Equatable {
    /// The name of the custom metadata entry holding it.
    public static let name = "DETECTOR_METADATA"

    /// A fixed-size anchor (`FixedAnchor`), in normalized input coordinates.
    public struct FixedAnchor: Sendable, Equatable {
        public var xCenter: Float, yCenter: Float, width: Float, height: Float
        public init(xCenter: Float, yCenter: Float, width: Float, height: Float) {
            self.xCenter = xCenter; self.yCenter = yCenter; self.width = width; self.height = height
        }
    }

    /// `TensorsDecodingOptions`.
    public struct DecodingOptions: Sendable, Equatable {
        public var numClasses: Int
        public var numBoxes: Int
        public var numCoords: Int
        public var keypointCoordOffset: Int
        public var numKeypoints: Int
        public var numValuesPerKeypoint: Int
        public var xScale: Float, yScale: Float, wScale: Float, hScale: Float
        public var applyExponentialOnBoxSize: Bool
        public var sigmoidScore: Bool

        public init(numClasses: Int, numBoxes: Int, numCoords: Int, keypointCoordOffset: Int = 0,
                    numKeypoints: Int = 0, numValuesPerKeypoint: Int = 2, xScale: Float, yScale: Float,
                    wScale: Float, hScale: Float, applyExponentialOnBoxSize: Bool, sigmoidScore: Bool) {
            self.numClasses = numClasses; self.numBoxes = numBoxes; self.numCoords = numCoords
            self.keypointCoordOffset = keypointCoordOffset; self.numKeypoints = numKeypoints
            self.numValuesPerKeypoint = numValuesPerKeypoint
            self.xScale = xScale; self.yScale = yScale; self.wScale = wScale; self.hScale = hScale
            self.applyExponentialOnBoxSize = applyExponentialOnBoxSize; self.sigmoidScore = sigmoidScore
        }
    }

    public var minParserVersion: String?
    public var anchors: [FixedAnchor]
    public var decoding: DecodingOptions

    public init(minParserVersion: String? = nil, anchors: [FixedAnchor], decoding: DecodingOptions) {
        self.minParserVersion = minParserVersion; self.anchors = anchors; self.decoding = decoding
    }

    /// Parses the flatbuffer of a `DETECTOR_METADATA` entry; `name` names the model in errors.
    public init(bytes: [UInt8], name: String) throws {
        let view = ByteView(bytes: bytes, name: name)
        guard bytes.count >= 8 else {
            throw FormatError.malformed(file: name, reason: "\(Self.name) of \(bytes.count) bytes is too short")
        }
        let root = try FlatTable.root(view, what: "\(Self.name) ObjectDetectorOptions")
        minParserVersion = try root.string(0)
        guard let schema = try root.table(1, what: "SsdAnchorsOptions")?.table(0, what: "FixedAnchorsSchema"),
              let list = try schema.vector(0, elementSize: 4, what: "FixedAnchorsSchema anchors") else {
            throw FormatError.malformed(file: name, reason: "\(Self.name) has no SSD anchors "
                                        + "(ssd_anchors_options.fixed_anchors_schema.anchors)")
        }
        var anchors: [FixedAnchor] = []
        anchors.reserveCapacity(list.count)
        for i in 0..<list.count {
            let a = try list.table(i, what: "FixedAnchor")
            anchors.append(FixedAnchor(xCenter: try a.f32(0), yCenter: try a.f32(1), width: try a.f32(2),
                                       height: try a.f32(3)))
        }
        self.anchors = anchors
        guard let d = try root.table(2, what: "TensorsDecodingOptions") else {
            throw FormatError.malformed(file: name, reason: "\(Self.name) has no tensors_decoding_options")
        }
        decoding = DecodingOptions(
            numClasses: Int(try d.i32(0)), numBoxes: Int(try d.i32(1)), numCoords: Int(try d.i32(2)),
            keypointCoordOffset: Int(try d.i32(3)), numKeypoints: Int(try d.i32(4)),
            numValuesPerKeypoint: Int(try d.i32(5)), xScale: try d.f32(6), yScale: try d.f32(7),
            wScale: try d.f32(8), hScale: try d.f32(9), applyExponentialOnBoxSize: try d.bool(10),
            sigmoidScore: try d.bool(11))
    }
}

extension ModelMetadata {
    /// The object detector metadata of the first subgraph, when it has a `DETECTOR_METADATA` entry.
    public func objectDetectorMetadata(name: String) throws -> ObjectDetectorMetadata? {
        guard let entry = subgraphs.first?.customMetadata.first(where: { $0.name == ObjectDetectorMetadata.name })
        else { return nil }
        return try ObjectDetectorMetadata(bytes: entry.data, name: name)
    }
}

/// `BoundingBoxProperties` of a tensor's metadata content: how its four values describe a box.
public struct BoundingBoxProperties: Sendable, Equatable {
    /// `BoundingBoxType`: 0 unknown, 1 boundaries, 2 upper left, 3 center.
    public var type: UInt8
    /// `CoordinateType`: 0 ratio, 1 pixel.
    public var coordinateType: UInt8
    /// Where each of the four values sits, when given.
    public var index: [UInt32]?

    public init(type: UInt8, coordinateType: UInt8, index: [UInt32]? = nil) {
        self.type = type; self.coordinateType = coordinateType; self.index = index
    }

    /// `BoundingBoxType.BOUNDARIES` and `CoordinateType.RATIO`, the only ones MediaPipe's detectors take.
    public static let boundaries: UInt8 = 1
    public static let ratio: UInt8 = 0

    /// `EnumNameBoundingBoxType`.
    public var typeName: String {
        let names = ["UNKNOWN", "BOUNDARIES", "UPPER_LEFT", "CENTER"]
        return Int(type) < names.count ? names[Int(type)] : ""
    }

    /// `EnumNameCoordinateType`.
    public var coordinateTypeName: String { coordinateType == 0 ? "RATIO" : (coordinateType == 1 ? "PIXEL" : "") }

    /// A tensor's content as the detector reads it: the union's type (0 when the tensor has no content or no
    /// properties) and, for type 3, the box properties.
    public struct Content: Sendable, Equatable {
        public var type: UInt8
        public var boundingBox: BoundingBoxProperties?

        public init(type: UInt8, boundingBox: BoundingBoxProperties? = nil) {
            self.type = type; self.boundingBox = boundingBox
        }

        /// `EnumNameContentProperties`.
        public var typeName: String {
            let names = ["NONE", "FeatureProperties", "ImageProperties", "BoundingBoxProperties", "AudioProperties"]
            return Int(type) < names.count ? names[Int(type)] : ""
        }
    }

    /// The content of each output tensor of the first subgraph, from a `TFLITE_METADATA` flatbuffer
    /// (`ModelMetadata` keeps only the content's type).
    public static func outputContents(metadataFlatbuffer bytes: [UInt8], name: String) throws -> [Content] {
        let root = try FlatTable.root(ByteView(bytes: bytes, name: name), what: "ModelMetadata")
        guard let subgraph = try root.tables(3, what: "SubGraphMetadata").first else { return [] }
        return try subgraph.tables(3, what: "output TensorMetadata").map { tensor in
            guard let content = try tensor.table(3, what: "Content"),
                  let properties = try content.table(1, what: "ContentProperties") else {
                return Content(type: 0, boundingBox: nil)
            }
            let type = try content.u8(0)
            guard type == 3 else { return Content(type: type, boundingBox: nil) }
            var index: [UInt32]? = nil
            if let v = try properties.vector(0, elementSize: 4, what: "BoundingBoxProperties index") {
                index = try (0..<v.count).map { try v.view.u32(v.elementPosition($0)) }
            }
            return Content(type: 3, boundingBox: BoundingBoxProperties(type: try properties.u8(1),
                                                                       coordinateType: try properties.u8(2),
                                                                       index: index))
        }
    }
}
