/// Smoothing of hand landmarks over time, one state per tracked hand. MediaPipe has no hand
/// smoothing, so this takes its landmark filters where MediaPipe has them: the one-euro filters
/// of its pose smoothing (mediapipe/modules/pose_landmark/pose_landmark_filtering.pbtxt, and the
/// same image-landmark values in tasks/cc/vision/face_landmarker/face_landmarks_detector_graph.cc):
/// image landmarks in pixels, their speed scaled by the hand's size (the mean side of its rect in
/// pixels), min cutoff 0.05, beta 80; world landmarks in metres, unscaled, min cutoff 0.1, beta 40;
/// derivative cutoff 1. The size scaling makes the filter act the same on near and far hands.
public struct HandLandmarkSmoothing: Sendable {
    var states: [Int: PoseLandmarkSmoother] = [:]

    public init() {}

    /// One tracked hand in a frame.
    public struct Hand {
        public var id: Int
        public var landmarks: [NormalizedLandmark]
        public var world: [Landmark]
        /// The hand's rect, whose size scales the image-landmark filter.
        public var rect: NormalizedRect
        public init(id: Int, landmarks: [NormalizedLandmark], world: [Landmark], rect: NormalizedRect) {
            self.id = id; self.landmarks = landmarks; self.world = world; self.rect = rect
        }
    }

    /// Smooths the hands of one frame; a track not in the frame has ended and its state is dropped,
    /// so a new track starts from its first landmarks.
    public mutating func smooth(_ hands: [Hand], imageWidth: Int, imageHeight: Int,
                                timestampMilliseconds: Int) -> [(landmarks: [NormalizedLandmark], world: [Landmark])] {
        let live = Set(hands.map(\.id))
        states = states.filter { live.contains($0.key) }
        return hands.map { h in
            var state = states[h.id] ?? PoseLandmarkSmoother()
            let out = state.smooth(h.landmarks, world: h.world, roi: h.rect, imageWidth: imageWidth,
                                   imageHeight: imageHeight, timestampMicroseconds: Int64(timestampMilliseconds) * 1000)
            states[h.id] = state
            return (out.0, out.1)
        }
    }
}
