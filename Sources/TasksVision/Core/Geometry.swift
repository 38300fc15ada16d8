/// A rectangle rotated about its center, in pixels (MediaPipe's `RotatedRect`).
public struct RotatedRect: Sendable, Equatable {
    public var centerX: Float, centerY: Float, width: Float, height: Float
    /// Radians, counter-clockwise positive as in MediaPipe.
    public var rotation: Float
    public init(centerX: Float, centerY: Float, width: Float, height: Float, rotation: Float) {
        self.centerX = centerX; self.centerY = centerY; self.width = width; self.height = height;
        self.rotation = rotation
    }
}

/// A rectangle rotated about its center in normalized image coordinates (MediaPipe's `NormalizedRect`).
public struct NormalizedRect: Sendable, Equatable, Codable {
    public var xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float
    public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0) {
        self.xCenter = xCenter; self.yCenter = yCenter; self.width = width; self.height = height;
        self.rotation = rotation
    }
}

/// A detection box in normalized coordinates (MediaPipe's `RelativeBoundingBox`).
public struct RelativeBox: Sendable, Equatable {
    public var xmin: Float, ymin: Float, width: Float, height: Float
    public init(xmin: Float, ymin: Float, width: Float, height: Float) {
        self.xmin = xmin; self.ymin = ymin; self.width = width; self.height = height
    }
}
