/// A classification: index, score and names (MediaPipe's `ResultCategory`).
public struct ResultCategory: Sendable, Equatable, Codable {
    public var index: Int
    public var score: Float
    public var categoryName: String?
    public var displayName: String?

    public init(index: Int, score: Float, categoryName: String? = nil, displayName: String? = nil) {
        self.index = index; self.score = score; self.categoryName = categoryName; self.displayName = displayName
    }

    enum CodingKeys: String, CodingKey { case index, score, categoryName, displayName }

    // Absent names are written as null, so every result has the same keys.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(score, forKey: .score)
        try c.encode(categoryName, forKey: .categoryName)
        try c.encode(displayName, forKey: .displayName)
    }
}
