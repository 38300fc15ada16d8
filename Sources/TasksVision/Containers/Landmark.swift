/// A landmark in normalized image coordinates; z uses roughly the x scale (MediaPipe's `NormalizedLandmark`).
public struct NormalizedLandmark: Sendable, Equatable, Codable {
    public var x: Float, y: Float, z: Float
    public var visibility: Float?
    public var presence: Float?
    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x; self.y = y; self.z = z; self.visibility = visibility; self.presence = presence
    }
}

/// A landmark in world coordinates, in metres (MediaPipe's `Landmark`).
public struct Landmark: Sendable, Equatable, Codable {
    public var x: Float, y: Float, z: Float
    public var visibility: Float?
    public var presence: Float?
    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x; self.y = y; self.z = z; self.visibility = visibility; self.presence = presence
    }
}

/// A pair of landmark indices to draw a line between.
public struct Connection: Sendable, Equatable, Hashable {
    public var start: Int, end: Int
    public init(start: Int, end: Int) { self.start = start; self.end = end }
}
