/// A keypoint in normalized image coordinates (MediaPipe's `NormalizedKeypoint`).
public struct NormalizedKeypoint: Sendable, Equatable, Codable {
    public var x: Float
    public var y: Float
    public var label: String?
    public var score: Float

    public init(x: Float, y: Float, label: String? = nil, score: Float = 0) {
        self.x = x; self.y = y; self.label = label; self.score = score
    }

    enum CodingKeys: String, CodingKey { case x, y, label, score }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(x, forKey: .x)
        try c.encode(y, forKey: .y)
        try c.encode(label, forKey: .label)
        try c.encode(score, forKey: .score)
    }
}

/// A detected object: pixel bounding box, categories and keypoints (MediaPipe's `Detection`).
public struct Detection: Sendable, Equatable, Codable {
    /// Bounding box in pixels of the image as displayed.
    public var boundingBox: Rect
    public var categories: [ResultCategory]
    /// Keypoints normalized to the image as displayed.
    public var keypoints: [NormalizedKeypoint]?

    public init(boundingBox: Rect, categories: [ResultCategory], keypoints: [NormalizedKeypoint]? = nil) {
        self.boundingBox = boundingBox; self.categories = categories; self.keypoints = keypoints
    }
}
