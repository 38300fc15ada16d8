/// The hand options `HandLandmarkerOptions` and `GestureRecognizerOptions` share (both run the
/// hand landmarker graph), so code that sets them can serve either.
public protocol HandTrackingOptions: AnyObject {
    /// Maximum number of hands to find.
    var numHands: Int { get set }
    /// Minimum palm detection score, in [0, 1].
    var minHandDetectionConfidence: Float { get set }
    /// Minimum hand presence score of the landmark model, in [0, 1].
    var minHandPresenceConfidence: Float { get set }
    /// IoU above which a new palm is taken for a hand already tracked (video and live stream).
    var minTrackingConfidence: Float { get set }
    /// Smooth landmarks over time per tracked hand (video and live stream); off in MediaPipe.
    var smoothLandmarks: Bool { get set }
}

extension HandTrackingOptions {
    var handSettings: HandPipeline.Settings {
        HandPipeline.Settings(numHands: numHands, minHandDetectionConfidence: minHandDetectionConfidence,
                              minHandPresenceConfidence: minHandPresenceConfidence,
                              minTrackingConfidence: minTrackingConfidence, smoothLandmarks: smoothLandmarks)
    }

    /// The hand fields of `other` copied onto these options.
    func copyHandFields(from other: HandTrackingOptions) {
        numHands = other.numHands
        minHandDetectionConfidence = other.minHandDetectionConfidence
        minHandPresenceConfidence = other.minHandPresenceConfidence
        minTrackingConfidence = other.minTrackingConfidence
        smoothLandmarks = other.smoothLandmarks
    }
}
