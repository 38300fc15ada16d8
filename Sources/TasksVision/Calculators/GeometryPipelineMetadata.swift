/// What is wrong with a geometry pipeline metadata file (geometry_pipeline_metadata_landmarks.binarypb).
enum GeometryPipelineMetadataError: Error, Equatable, CustomStringConvertible {
    /// The file ends inside a field.
    case truncated(field: String, offset: Int)
    /// A varint longer than 10 bytes, a length past the end, a wire type that cannot carry the field.
    case malformed(field: String, offset: Int, reason: String)
    /// The messages parse but do not describe a usable canonical mesh.
    case invalid(String)

    var description: String {
        switch self {
        case let .truncated(field, offset): return "truncated in \(field) at byte \(offset)"
        case let .malformed(field, offset, reason): return "malformed \(field) at byte \(offset): \(reason)"
        case .invalid(let reason): return reason
        }
    }
}

/// MediaPipe's `GeometryPipelineMetadata` (face_geometry/proto/geometry_pipeline_metadata.proto), read from its
/// protobuf wire format by hand: the canonical mesh (`Mesh3d`: vertex type, primitive type, vertex buffer of x, y,
/// z, u, v per vertex, triangle index buffer), the Procrustes landmark weights, and the input source. Unknown fields
/// are skipped, as protobuf readers do; every length and index is checked against the bytes there are.
struct GeometryPipelineMetadata: Equatable {
    enum InputSource: Int { case faceLandmarkPipeline = 1, faceDetectionPipeline = 2 }

    var inputSource = InputSource.faceLandmarkPipeline
    /// `VERTEX_PT` (0) is the only vertex type: 5 floats per vertex, the position first.
    var vertexType = 0
    /// `TRIANGLE` (0) is the only primitive type.
    var primitiveType = 0
    var vertexBuffer: [Float] = []
    var indexBuffer: [UInt32] = []
    /// (landmark id, weight) pairs of `procrustes_landmark_basis`, in file order.
    var landmarkWeights: [(id: Int, weight: Float)] = []

    static let vertexSize = 5

    var vertexCount: Int { vertexBuffer.count / Self.vertexSize }

    static func == (a: GeometryPipelineMetadata, b: GeometryPipelineMetadata) -> Bool {
        a.inputSource == b.inputSource && a.vertexType == b.vertexType && a.primitiveType == b.primitiveType
            && a.vertexBuffer == b.vertexBuffer && a.indexBuffer == b.indexBuffer
            && a.landmarkWeights.map(\.id) == b.landmarkWeights.map(\.id)
            && a.landmarkWeights.map(\.weight) == b.landmarkWeights.map(\.weight)
    }

    /// Reads and validates the metadata (`ValidateGeometryPipelineMetadata`: a non-empty mesh of whole vertices
    /// and whole triangles whose indices name vertices, and non-negative weights of landmarks that exist).
    init(bytes: [UInt8]) throws {
        var reader = ProtobufReader(bytes: bytes, message: "GeometryPipelineMetadata")
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 2): try readMesh(try reader.subMessage("canonical_mesh"))
            case (2, 2):
                var ref = try reader.subMessage("procrustes_landmark_basis")
                var id = 0, weight: Float = 0
                while let (f, w) = try ref.nextField() {
                    switch (f, w) {
                    case (1, 0): id = Int(truncatingIfNeeded: try ref.varint("landmark_id") & 0xFFFF_FFFF)
                    case (2, 5): weight = try ref.float("weight")
                    default: try ref.skip(wire: w, field: "WeightedLandmarkRef field \(f)")
                    }
                }
                landmarkWeights.append((id, weight))
            case (3, 0):
                let v = try reader.varint("input_source")
                switch v {
                case 0, 1: inputSource = .faceLandmarkPipeline  // DEFAULT is FACE_LANDMARK_PIPELINE
                case 2: inputSource = .faceDetectionPipeline
                default: throw GeometryPipelineMetadataError.invalid("unknown input_source \(v)")
                }
            default: try reader.skip(wire: wire, field: "GeometryPipelineMetadata field \(field)")
            }
        }
        try validate()
    }

    private mutating func readMesh(_ message: ProtobufReader) throws {
        var mesh = message
        while let (field, wire) = try mesh.nextField() {
            switch (field, wire) {
            case (1, 0): vertexType = Int(truncatingIfNeeded: try mesh.varint("vertex_type"))
            case (2, 0): primitiveType = Int(truncatingIfNeeded: try mesh.varint("primitive_type"))
            case (3, 5): vertexBuffer.append(try mesh.float("vertex_buffer"))
            case (3, 2):
                var packed = try mesh.subMessage("vertex_buffer")
                guard packed.remaining % 4 == 0 else {
                    throw GeometryPipelineMetadataError.malformed(field: "vertex_buffer", offset: packed.offset,
                                                                  reason: "\(packed.remaining) bytes of floats")
                }
                while packed.remaining > 0 { vertexBuffer.append(try packed.float("vertex_buffer")) }
            case (4, 0): indexBuffer.append(UInt32(truncatingIfNeeded: try mesh.varint("index_buffer")))
            case (4, 2):
                var packed = try mesh.subMessage("index_buffer")
                while packed.remaining > 0 {
                    indexBuffer.append(UInt32(truncatingIfNeeded: try packed.varint("index_buffer")))
                }
            default: try mesh.skip(wire: wire, field: "Mesh3d field \(field)")
            }
        }
    }

    private func validate() throws {
        guard vertexType == 0 else { throw GeometryPipelineMetadataError.invalid("unknown vertex_type \(vertexType)") }
        guard primitiveType == 0 else {
            throw GeometryPipelineMetadataError.invalid("unknown primitive_type \(primitiveType)")
        }
        guard !vertexBuffer.isEmpty, vertexBuffer.count % Self.vertexSize == 0 else {
            throw GeometryPipelineMetadataError.invalid(
                "canonical_mesh has \(vertexBuffer.count) vertex floats, not a positive multiple of 5 (x, y, z, u, v)")
        }
        guard !indexBuffer.isEmpty, indexBuffer.count % 3 == 0 else {
            throw GeometryPipelineMetadataError.invalid(
                "canonical_mesh has \(indexBuffer.count) indices, not a positive multiple of 3 (triangles)")
        }
        if let bad = indexBuffer.first(where: { Int($0) >= vertexCount }) {
            throw GeometryPipelineMetadataError.invalid("index_buffer names vertex \(bad) of \(vertexCount)")
        }
        guard !landmarkWeights.isEmpty else {
            throw GeometryPipelineMetadataError.invalid("procrustes_landmark_basis is empty")
        }
        for (id, weight) in landmarkWeights {
            guard id < vertexCount else {
                throw GeometryPipelineMetadataError.invalid("procrustes_landmark_basis names landmark \(id) of "
                                                            + "\(vertexCount)")
            }
            guard weight >= 0, weight.isFinite else {
                throw GeometryPipelineMetadataError.invalid("landmark \(id) has weight \(weight), not >= 0")
            }
        }
        guard vertexBuffer.allSatisfy(\.isFinite) else {
            throw GeometryPipelineMetadataError.invalid("canonical_mesh has a vertex coordinate that is not finite")
        }
    }
}

/// The protobuf wire format, as far as the metadata needs it: tags, varints, 32-bit values, length-delimited
/// fields, skipping the rest. Offsets in errors are from the start of the file.
struct ProtobufReader {
    let bytes: [UInt8]
    private(set) var offset: Int
    let end: Int
    let message: String

    init(bytes: [UInt8], message: String) {
        self.init(bytes: bytes, offset: 0, end: bytes.count, message: message)
    }

    private init(bytes: [UInt8], offset: Int, end: Int, message: String) {
        self.bytes = bytes; self.offset = offset; self.end = end; self.message = message
    }

    var remaining: Int { end - offset }

    /// The next (field number, wire type), nil at the end of the message.
    mutating func nextField() throws -> (Int, Int)? {
        guard offset < end else { return nil }
        let start = offset
        let key = try varint("\(message) field key")
        let field = key >> 3
        guard field > 0, field < 1 << 29 else {
            throw GeometryPipelineMetadataError.malformed(field: message, offset: start, reason: "field number 0")
        }
        return (Int(field), Int(key & 7))
    }

    mutating func varint(_ field: String) throws -> UInt64 {
        var value: UInt64 = 0
        let start = offset
        for shift in stride(from: 0, to: 70, by: 7) {
            guard offset < end else { throw GeometryPipelineMetadataError.truncated(field: field, offset: start) }
            let b = bytes[offset]
            offset += 1
            if shift < 64 { value |= UInt64(b & 0x7F) << UInt64(shift) }
            if b & 0x80 == 0 { return value }
        }
        throw GeometryPipelineMetadataError.malformed(field: field, offset: start,
                                                      reason: "varint longer than 10 bytes")
    }

    mutating func float(_ field: String) throws -> Float {
        guard remaining >= 4 else { throw GeometryPipelineMetadataError.truncated(field: field, offset: offset) }
        let bits = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
        offset += 4
        return Float(bitPattern: bits)
    }

    /// A length-delimited field's bytes as a reader of their own.
    mutating func subMessage(_ field: String) throws -> ProtobufReader {
        let start = offset
        let length = try varint(field)
        guard length <= UInt64(remaining) else {
            throw GeometryPipelineMetadataError.truncated(field: field, offset: start)
        }
        let sub = ProtobufReader(bytes: bytes, offset: offset, end: offset + Int(length), message: field)
        offset += Int(length)
        return sub
    }

    mutating func skip(wire: Int, field: String) throws {
        let start = offset
        switch wire {
        case 0: _ = try varint(field)
        case 1:
            guard remaining >= 8 else { throw GeometryPipelineMetadataError.truncated(field: field, offset: start) }
            offset += 8
        case 2: _ = try subMessage(field)
        case 5:
            guard remaining >= 4 else { throw GeometryPipelineMetadataError.truncated(field: field, offset: start) }
            offset += 4
        default:
            throw GeometryPipelineMetadataError.malformed(field: field, offset: start, reason: "wire type \(wire)")
        }
    }
}
