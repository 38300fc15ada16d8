/// The categories of one classification head (MediaPipe's `Classifications`): an image classifier's head, a
/// face's blendshapes (52 categories in model order).
///
/// Encoded (the command line's JSON) as its categories only.
public struct Classifications: Sendable, Equatable, Codable {
    /// The categories, best first for a classifier.
    public var categories: [ResultCategory]
    /// The index of the head (the model output) in the model.
    public var headIndex: Int
    /// The head's name, its output tensor's name in the metadata; "" for a classifier without one (as MediaPipe
    /// Tasks iOS gives it).
    public var headName: String?

    public init(categories: [ResultCategory], headIndex: Int = 0, headName: String? = nil) {
        self.categories = categories; self.headIndex = headIndex; self.headName = headName
    }

    public init(headIndex: Int, headName: String?, categories: [ResultCategory]) {
        self.init(categories: categories, headIndex: headIndex, headName: headName)
    }

    enum CodingKeys: String, CodingKey { case categories }

    public init(from decoder: Decoder) throws {
        categories = try decoder.container(keyedBy: CodingKeys.self).decode([ResultCategory].self, forKey: .categories)
        headIndex = 0
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(categories, forKey: .categories)
    }
}

/// A classifier's result for one image (MediaPipe's `ClassificationResult`): one `Classifications` per head.
public struct ClassificationResult: Sendable, Equatable {
    public var classifications: [Classifications]
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int

    public init(classifications: [Classifications], timestampInMilliseconds: Int = 0) {
        self.classifications = classifications; self.timestampInMilliseconds = timestampInMilliseconds
    }
}
