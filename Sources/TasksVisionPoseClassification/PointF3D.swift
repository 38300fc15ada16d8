import TasksVision

/// A landmark position or an embedding vector in float32 (ML Kit's `PointF3D`). Pose samples hold
/// landmarks in pixels of their image: x times width, y times height, z times width.
public struct PointF3D: Sendable, Equatable, Hashable {
    /// The coordinates.
    public var x: Float, y: Float, z: Float
    /// A point of three coordinates.
    public init(x: Float, y: Float, z: Float) { self.x = x; self.y = y; self.z = z }
}

extension PointF3D {
    /// An ML Kit pose's 33 landmark positions (`position3D`) in BlazePose order; no landmarks for a pose
    /// without them.
    public static func landmarks(of pose: Pose) -> [PointF3D] {
        guard !pose.landmarks.isEmpty else { return [] }
        let inOrder = pose.landmarks.count == PoseLandmarkType.allCases.count
            && pose.landmarks.enumerated().allSatisfy { $0.element.type.index == $0.offset }
        let ordered = inOrder ? pose.landmarks : PoseLandmarkType.allCases.map { pose.landmark(ofType: $0) }
        return ordered.map { PointF3D(x: Float($0.position.x), y: Float($0.position.y), z: Float($0.position.z)) }
    }

    /// A pose landmarker's normalized landmarks in pixels, as the samples were made (MediaPipe's pose
    /// classification Colab): x times width, y times height, z times width, each product taken in
    /// double and rounded to float32.
    public static func landmarks(of landmarks: [NormalizedLandmark], imageWidth: Int,
                                 imageHeight: Int) -> [PointF3D] {
        let w = Double(imageWidth), h = Double(imageHeight)
        return landmarks.map { PointF3D(x: Float(Double($0.x) * w), y: Float(Double($0.y) * h),
                                        z: Float(Double($0.z) * w)) }
    }
}

// ML Kit's `Utils`, in float32 and Java's order of operations. Note the argument order of
// `subtract(b, a)`, which gives `a - b`, as in the Java.
enum Utils {
    static func subtract(_ b: PointF3D, _ a: PointF3D) -> PointF3D {
        PointF3D(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z)
    }

    static func multiply(_ a: PointF3D, _ m: Float) -> PointF3D { PointF3D(x: a.x * m, y: a.y * m, z: a.z * m) }

    static func multiply(_ a: PointF3D, _ m: PointF3D) -> PointF3D {
        PointF3D(x: a.x * m.x, y: a.y * m.y, z: a.z * m.z)
    }

    static func average(_ a: PointF3D, _ b: PointF3D) -> PointF3D {
        PointF3D(x: (a.x + b.x) * 0.5, y: (a.y + b.y) * 0.5, z: (a.z + b.z) * 0.5)
    }

    /// `(float) Math.hypot(x, y)`: fdlibm's hypot in double, narrowed.
    static func l2Norm2D(_ p: PointF3D) -> Float { Float(FdLibm.hypot(Double(p.x), Double(p.y))) }

    /// Guava's `Floats.max(|x|, |y|, |z|)`, which folds with `Math.max`.
    static func maxAbs(_ p: PointF3D) -> Float { Java.max(Java.max(abs(p.x), abs(p.y)), abs(p.z)) }

    static func sumAbs(_ p: PointF3D) -> Float { abs(p.x) + abs(p.y) + abs(p.z) }
}
