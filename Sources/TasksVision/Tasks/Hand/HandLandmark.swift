/// The 21 hand landmarks, in model order (MediaPipe's `HandLandmark`).
public enum HandLandmark: Int, CaseIterable, Sendable, Codable {
    case wrist = 0
    case thumbCMC, thumbMCP, thumbIP, thumbTip
    case indexFingerMCP, indexFingerPIP, indexFingerDIP, indexFingerTip
    case middleFingerMCP, middleFingerPIP, middleFingerDIP, middleFingerTip
    case ringFingerMCP, ringFingerPIP, ringFingerDIP, ringFingerTip
    case pinkyMCP, pinkyPIP, pinkyDIP, pinkyTip
}

/// Landmark connections for drawing hands (MediaPipe's `HandLandmarker` class properties).
public enum HandConnections {
    static func c(_ pairs: [(Int, Int)]) -> [Connection] { pairs.map { Connection(start: $0.0, end: $0.1) } }
    public static let palm = c([(0, 1), (0, 5), (9, 13), (13, 17), (5, 9), (0, 17)])
    public static let thumb = c([(1, 2), (2, 3), (3, 4)])
    public static let indexFinger = c([(5, 6), (6, 7), (7, 8)])
    public static let middleFinger = c([(9, 10), (10, 11), (11, 12)])
    public static let ringFinger = c([(13, 14), (14, 15), (15, 16)])
    public static let pinky = c([(17, 18), (18, 19), (19, 20)])
    /// Every connection of the hand.
    public static let all = palm + thumb + indexFinger + middleFinger + ringFinger + pinky
}
