import TasksVision

/// One hand as the hand landmarker found it: what the gesture embedder needs, and the size of
/// the image it came from (the runtime's features correct the landmarks for its aspect ratio).
public struct GestureHand: Sendable, Equatable {
    /// 21 image landmarks, x and y normalized to the image's width and height.
    public var landmarks: [SIMD3<Float>]
    /// 21 world landmarks in meters.
    public var worldLandmarks: [SIMD3<Float>]
    /// "Left" or "Right", as the landmarker's handedness classifier names it.
    public var handedness: String
    /// The score of `handedness`.
    public var handednessScore: Float
    public var imageWidth: Int
    public var imageHeight: Int

    public init(landmarks: [SIMD3<Float>], worldLandmarks: [SIMD3<Float>], handedness: String,
                handednessScore: Float, imageWidth: Int, imageHeight: Int) {
        self.landmarks = landmarks; self.worldLandmarks = worldLandmarks; self.handedness = handedness
        self.handednessScore = handednessScore; self.imageWidth = imageWidth; self.imageHeight = imageHeight
    }

    /// Hand `index` of a landmarker result on an image of that size.
    public init?(_ result: HandLandmarkerResult, index: Int = 0, imageWidth: Int, imageHeight: Int) {
        guard result.landmarks.indices.contains(index), result.worldLandmarks.indices.contains(index),
              result.handedness.indices.contains(index), let h = result.handedness[index].first,
              result.landmarks[index].count == 21, result.worldLandmarks[index].count == 21 else { return nil }
        self.init(landmarks: result.landmarks[index].map { SIMD3($0.x, $0.y, $0.z) },
                  worldLandmarks: result.worldLandmarks[index].map { SIMD3($0.x, $0.y, $0.z) },
                  handedness: h.categoryName ?? "", handednessScore: h.score,
                  imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The probability that this is a right hand (MediaPipe's `HandednessToMatrixCalculator`).
    public var rightHandProbability: Float { handedness == "Right" ? handednessScore : 1 - handednessScore }
}

/// How the embedder's inputs are made from a hand.
public enum GestureFeatures: String, Sendable, CaseIterable {
    /// As MediaPipe's gesture recognizer makes them at run time (`LandmarksToMatrixCalculator`):
    /// landmarks corrected for the image's aspect ratio, handedness as the probability of "Right".
    /// The default: the classifier is trained on what it will see.
    case runtime
    /// As Model Maker's dataset makes them (dataset.py): the landmarks as the landmarker gives
    /// them, without the aspect correction, and handedness as the score of the top category.
    case modelMaker = "model-maker"
}
