import Foundation

/// A keypoint in normalized image coordinates (MediaPipe's `NormalizedKeypoint`).
public struct NormalizedKeypoint: Sendable, Equatable, Codable {
    /// x and y in [0, 1] of the image as displayed.
    public var location: CGPoint
    public var label: String?
    public var score: Float

    public init(location: CGPoint, label: String? = nil, score: Float = 0) {
        self.location = location; self.label = label; self.score = score
    }

    init(x: Float, y: Float) { self.init(location: CGPoint(x: CGFloat(x), y: CGFloat(y))) }

    // JSON: {"x", "y", "label", "score"}, the coordinates written as the Float they were computed in.
    enum CodingKeys: String, CodingKey { case x, y, label, score }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Float(location.x), forKey: .x)
        try c.encode(Float(location.y), forKey: .y)
        try c.encode(label, forKey: .label)
        try c.encode(score, forKey: .score)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        location = CGPoint(x: CGFloat(try c.decode(Float.self, forKey: .x)),
                           y: CGFloat(try c.decode(Float.self, forKey: .y)))
        label = try c.decodeIfPresent(String.self, forKey: .label)
        score = try c.decode(Float.self, forKey: .score)
    }
}

/// A detected object: pixel bounding box, categories and keypoints (MediaPipe's `Detection`).
public struct Detection: Sendable, Equatable, Codable {
    /// The categories, best first.
    public var categories: [ResultCategory]
    /// Bounding box in pixels of the image as displayed (whole pixels, as MediaPipe's).
    public var boundingBox: CGRect
    /// Keypoints normalized to the image as displayed.
    public var keypoints: [NormalizedKeypoint]?

    public init(categories: [ResultCategory], boundingBox: CGRect, keypoints: [NormalizedKeypoint]? = nil) {
        self.categories = categories; self.boundingBox = boundingBox; self.keypoints = keypoints
    }

    // JSON: the box as {"originX", "originY", "width", "height"}.
    enum CodingKeys: String, CodingKey { case boundingBox, categories, keypoints }
    private struct Box: Codable { var originX: Float, originY: Float, width: Float, height: Float }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let b = boundingBox
        try c.encode(Box(originX: Float(b.origin.x), originY: Float(b.origin.y), width: Float(b.size.width),
                         height: Float(b.size.height)), forKey: .boundingBox)
        try c.encode(categories, forKey: .categories)
        try c.encodeIfPresent(keypoints, forKey: .keypoints)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let b = try c.decode(Box.self, forKey: .boundingBox)
        boundingBox = CGRect(x: CGFloat(b.originX), y: CGFloat(b.originY),
                             width: CGFloat(b.width), height: CGFloat(b.height))
        categories = try c.decode([ResultCategory].self, forKey: .categories)
        keypoints = try c.decodeIfPresent([NormalizedKeypoint].self, forKey: .keypoints)
    }
}
