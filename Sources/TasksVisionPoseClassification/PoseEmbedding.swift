/// ML Kit's pose embedding: the landmarks moved to the hips' centre and scaled by the pose's size,
/// then 23 differences between landmark pairs (ML Kit's `PoseEmbedding`), all in float32 in the
/// Java code's order of operations.
public struct PoseEmbedding: Sendable, Equatable {
    /// The number of landmarks an embedding is made from (BlazePose's 33).
    public static let landmarkCount = 33
    /// ML Kit's multiplier of the torso size giving the smallest pose size.
    public static let defaultTorsoMultiplier: Float = 2.5

    /// The pose size is at least the torso (hips' centre to shoulders' centre, in 2-D) times this.
    public var torsoMultiplier: Float

    /// An embedding with a torso multiplier (ML Kit's 2.5 by default).
    public init(torsoMultiplier: Float = PoseEmbedding.defaultTorsoMultiplier) {
        self.torsoMultiplier = torsoMultiplier
    }

    // BlazePose landmark indices (ML Kit's PoseLandmark constants).
    static let leftShoulder = 11, rightShoulder = 12, leftElbow = 13, rightElbow = 14, leftWrist = 15
    static let rightWrist = 16, leftHip = 23, rightHip = 24, leftKnee = 25, rightKnee = 26, leftAnkle = 27
    static let rightAnkle = 28

    /// The landmark pairs whose differences form the embedding, in ML Kit's order; -1 stands for the
    /// first entry's centres (shoulders' centre minus hips' centre).
    static let pairs: [(Int, Int)] = [
        (-1, -1),
        (leftShoulder, leftElbow), (rightShoulder, rightElbow), (leftElbow, leftWrist), (rightElbow, rightWrist),
        (leftHip, leftKnee), (rightHip, rightKnee), (leftKnee, leftAnkle), (rightKnee, rightAnkle),
        (leftShoulder, leftWrist), (rightShoulder, rightWrist), (leftHip, leftAnkle), (rightHip, rightAnkle),
        (leftHip, leftWrist), (rightHip, rightWrist), (leftShoulder, leftAnkle), (rightShoulder, rightAnkle),
        (leftHip, leftWrist), (rightHip, rightWrist),
        (leftElbow, rightElbow), (leftKnee, rightKnee), (leftWrist, rightWrist), (leftAnkle, rightAnkle),
    ]

    /// The embedding of 33 landmarks (ML Kit's `getPoseEmbedding`): 23 vectors.
    public func embedding(_ landmarks: [PointF3D]) throws -> [PointF3D] {
        guard landmarks.count == Self.landmarkCount else {
            throw PoseClassificationError.landmarkCount(landmarks.count)
        }
        return Self.embedding(of: normalize(landmarks))
    }

    func normalize(_ landmarks: [PointF3D]) -> [PointF3D] {
        let center = Utils.average(landmarks[Self.leftHip], landmarks[Self.rightHip])
        var normalized = landmarks.map { Utils.subtract(center, $0) }
        let scale = 1 / poseSize(normalized)
        normalized = normalized.map { Utils.multiply(Utils.multiply($0, scale), 100) }
        return normalized
    }

    func poseSize(_ landmarks: [PointF3D]) -> Float {
        let hipsCenter = Utils.average(landmarks[Self.leftHip], landmarks[Self.rightHip])
        let shouldersCenter = Utils.average(landmarks[Self.leftShoulder], landmarks[Self.rightShoulder])
        let torsoSize = Utils.l2Norm2D(Utils.subtract(hipsCenter, shouldersCenter))
        var maxDistance = torsoSize * torsoMultiplier
        for landmark in landmarks {
            let distance = Utils.l2Norm2D(Utils.subtract(hipsCenter, landmark))
            if distance > maxDistance { maxDistance = distance }
        }
        return maxDistance
    }

    static func embedding(of lm: [PointF3D]) -> [PointF3D] {
        pairs.map { a, b in
            a < 0
                ? Utils.subtract(Utils.average(lm[leftHip], lm[rightHip]),
                                 Utils.average(lm[leftShoulder], lm[rightShoulder]))
                : Utils.subtract(lm[a], lm[b])
        }
    }
}
