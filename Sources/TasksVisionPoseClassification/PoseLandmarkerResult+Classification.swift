import TasksVision

// MediaPipe's PoseLandmarker as the input: its normalized landmarks in pixels of the image
// (`PointF3D.landmarks(of:imageWidth:imageHeight:)`), as the samples were made.
extension PoseClassifier {
    /// Classifies the first pose of a pose landmarker's result (no classes when it found none), its
    /// landmarks taken to pixels of an image of `imageWidth` x `imageHeight`.
    public func classify(_ result: PoseLandmarkerResult, imageWidth: Int, imageHeight: Int) throws
        -> ClassificationResult {
        try classify(PointF3D.landmarks(of: result.landmarks.first ?? [], imageWidth: imageWidth,
                                        imageHeight: imageHeight))
    }
}

extension PoseClassifierProcessor {
    /// Processes the first pose of a pose landmarker's result (a frame without a pose when it found
    /// none) at the result's timestamp, its landmarks taken to pixels of the image.
    public mutating func process(_ result: PoseLandmarkerResult, imageWidth: Int,
                                 imageHeight: Int) throws -> PoseClassification {
        try process(landmarks: PointF3D.landmarks(of: result.landmarks.first ?? [], imageWidth: imageWidth,
                                                  imageHeight: imageHeight),
                    timestampInMilliseconds: Int64(result.timestampInMilliseconds))
    }
}
