extension TFLiteModel {
    /// The lines of the model's label file: the first associated file its metadata names that the
    /// model carries, else the first by name; empty when it carries none.
    package func labels() throws -> [String] {
        let files = try associatedFiles()
        let name = try metadata()?.allAssociatedFileNames.first { files[$0] != nil } ?? files.keys.sorted().first
        return name.flatMap { files[$0] }.map {
            String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        } ?? []
    }
}
