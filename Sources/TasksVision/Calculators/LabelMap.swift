import TasksVisionFormat

/// A model's category names and display names, as MediaPipe's tasks read them from a tensor's metadata
/// (`GetLabelItemsIfAny` of the classification postprocessing and segmenter graphs): the names from the first
/// `TENSOR_AXIS_LABELS` file, the display names from the first such file whose locale is the options' one,
/// both split as `BuildLabelMapFromFiles` splits them (mediapipe/util/label_map_util.cc: lines ending in
/// `\n`, `\r` or `\r\n`, an empty last line dropped, empty lines elsewhere kept).
struct LabelMap: Equatable, Sendable {
    var names: [String]
    /// One per name, when the model has a labels file in the locale asked for.
    var displayNames: [String]?

    /// `ForEachLine`, then the last line dropped when it is empty.
    static func lines(_ data: [UInt8]) -> [String] {
        var out: [String] = []
        var start = 0, i = 0
        while i < data.count {
            let c = data[i]
            if c == UInt8(ascii: "\r") || c == UInt8(ascii: "\n") {
                out.append(String(decoding: data[start..<i], as: UTF8.self))
                i += c == UInt8(ascii: "\r") && i + 1 < data.count && data[i + 1] == UInt8(ascii: "\n") ? 2 : 1
                start = i
            } else {
                i += 1
            }
        }
        if start < data.count { out.append(String(decoding: data[start...], as: UTF8.self)) }
        if out.last?.isEmpty == true { out.removeLast() }
        return out
    }

    /// The label map of `tensor`, or nil when it names no labels file. Throws MediaPipe's error texts for an
    /// empty labels file or display names of another count; `model` names the file in our messages.
    static func of(_ tensor: ModelMetadata.TensorMetadata?, files: [String: [UInt8]], locale: String?,
                   model: String) throws -> LabelMap? {
        guard let tensor, let file = tensor.associatedFiles.first(where: { $0.type == .tensorAxisLabels }) else {
            return nil
        }
        guard let labels = files[file.name] else {
            throw VisionTaskError.invalidModel("\(model): NOT_FOUND: No associated file with name: \(file.name)")
        }
        guard !labels.isEmpty else {
            throw VisionTaskError.invalidModel("\(model): INVALID_ARGUMENT: Expected non-empty labels file.")
        }
        let names = lines(labels)
        var displayNames: [String]?
        // An empty locale matches any file (FindFirstAssociatedFileName), so the names are their own display names.
        let locale = locale ?? "en"
        if let display = tensor.associatedFiles.first(where: {
            $0.type == .tensorAxisLabels && (locale.isEmpty || $0.locale == locale)
        }) {
            guard let data = files[display.name] else {
                throw VisionTaskError.invalidModel("\(model): NOT_FOUND: No associated file with name: "
                                                   + display.name)
            }
            if !data.isEmpty {
                let d = lines(data)
                guard d.count == names.count else {
                    throw VisionTaskError.invalidModel("\(model): INVALID_ARGUMENT: Mismatch between number of "
                                                       + "labels (\(names.count)) and display names (\(d.count)).")
                }
                displayNames = d
            }
        }
        return LabelMap(names: names, displayNames: displayNames)
    }
}
