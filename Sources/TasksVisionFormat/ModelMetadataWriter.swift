/// Writes TFLite model metadata (metadata_schema.fbs, file identifier `M001`): what
/// `ModelMetadata` reads (names, descriptions, content, normalization, score calibration and
/// thresholding process units, stats, associated files, subgraphs' custom metadata, the minimum parser version).
extension ModelMetadata {
    /// The metadata flatbuffer, to store as the model's `TFLITE_METADATA` buffer.
    public func serialized() throws -> [UInt8] {
        var root = FlatObject()
        root.set(0, string: name)
        root.set(1, string: description)
        root.set(2, string: version)
        root.set(3, tables: subgraphs.map { sg in
            var o = FlatObject()
            o.set(0, string: sg.name)
            if !sg.inputs.isEmpty { o.set(2, tables: sg.inputs.map(Self.tensorObject)) }
            if !sg.outputs.isEmpty { o.set(3, tables: sg.outputs.map(Self.tensorObject)) }
            if !sg.associatedFiles.isEmpty { o.set(4, tables: sg.associatedFiles.map(Self.fileObject)) }
            if !sg.customMetadata.isEmpty { o.set(9, tables: sg.customMetadata.map(Self.customObject)) }
            return o
        })
        root.set(4, string: author)
        root.set(5, string: license)
        if !associatedFiles.isEmpty { root.set(6, tables: associatedFiles.map(Self.fileObject)) }
        root.set(7, string: minParserVersion)
        return try FlatBufferWriter.serialize(root: root, identifier: "M001")
    }

    /// The schema's `CustomMetadata`: its data vector is `force_align: 16`.
    static func customObject(_ c: CustomMetadata) -> FlatObject {
        var o = FlatObject()
        o.set(0, string: c.name)
        o.set(1, bytes: c.data, alignment: 16)
        return o
    }

    static func fileObject(_ f: AssociatedFile) -> FlatObject {
        var o = FlatObject()
        o.set(0, string: f.name)
        o.set(1, string: f.description)
        o.set(2, u8: f.type.rawValue)
        o.set(3, string: f.locale)
        return o
    }

    static func tensorObject(_ t: TensorMetadata) -> FlatObject {
        var o = FlatObject()
        o.set(0, string: t.name)
        o.set(1, string: t.description)
        if let content = t.content {
            var c = FlatObject()
            switch content {
            case .feature:
                c.set(0, u8: 1)
                c.set(1, table: FlatObject())
            case let .image(colorSpace):
                var image = FlatObject()
                image.set(0, u8: colorSpace)
                c.set(0, u8: 2)
                c.set(1, table: image)
            case let .other(type):
                c.set(0, u8: type)
                c.set(1, table: FlatObject())
            }
            o.set(3, table: c)
        }
        var units: [FlatObject] = []
        if let n = t.normalization {
            var options = FlatObject()
            options.set(0, floats: n.mean)
            options.set(1, floats: n.std)
            var unit = FlatObject()
            unit.set(0, u8: 1)
            unit.set(1, table: options)
            units.append(unit)
        }
        if let c = t.scoreCalibration {
            var options = FlatObject()
            options.set(0, u8: c.transformation)
            options.set(1, f32: c.defaultScore)
            var unit = FlatObject()
            unit.set(0, u8: 2)
            unit.set(1, table: options)
            units.append(unit)
        }
        if let threshold = t.scoreThreshold {
            var options = FlatObject()
            options.set(0, f32: threshold)
            var unit = FlatObject()
            unit.set(0, u8: 3)
            unit.set(1, table: options)
            units.append(unit)
        }
        if !units.isEmpty { o.set(4, tables: units) }
        if !t.statsMin.isEmpty || !t.statsMax.isEmpty {
            var stats = FlatObject()
            if !t.statsMax.isEmpty { stats.set(0, floats: t.statsMax) }
            if !t.statsMin.isEmpty { stats.set(1, floats: t.statsMin) }
            o.set(5, table: stats)
        }
        if !t.associatedFiles.isEmpty { o.set(6, tables: t.associatedFiles.map(fileObject)) }
        return o
    }
}
