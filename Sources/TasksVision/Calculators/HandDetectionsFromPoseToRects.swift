/// MediaPipe's `HandDetectionsFromPoseToRectsCalculator` (modules/holistic_landmark/calculators): a hand's
/// rect from three pose landmarks, given as a detection's keypoints (wrist, pinky, index). The middle
/// finger is estimated a third of the way from the index to the pinky; the rect is centred on it, twice
/// its distance to the wrist wide and high (in pixels), and turned so that the wrist-to-middle vector
/// points up.
public enum HandDetectionsFromPoseToRects {
    /// `M_PI * 0.5f`, stored in a float.
    static let targetAngle = Float(Double.pi * 0.5)

    /// The rect of a detection whose keypoints are the wrist, pinky and index (normalized); nil with fewer.
    public static func rect(_ d: RawDetection, imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard d.keypoints.count >= 3 else { return nil }
        let w = Float(imageWidth), h = Float(imageHeight)
        let xWrist = d.keypoints[0].x * w, yWrist = d.keypoints[0].y * h
        let xPinky = d.keypoints[1].x * w, yPinky = d.keypoints[1].y * h
        let xIndex = d.keypoints[2].x * w, yIndex = d.keypoints[2].y * h
        let xMiddle = (2 * xIndex + xPinky) / 3, yMiddle = (2 * yIndex + yPinky) / 3
        let dx = xMiddle - xWrist, dy = yMiddle - yWrist
        // std::sqrt of a float is a float; the product with 2.0 is exact.
        let boxSize = (dx * dx + dy * dy).squareRoot() * 2
        let rotation = normalizeRadians(targetAngle - FloatMath.atan2(-(yMiddle - yWrist), xMiddle - xWrist))
        return NormalizedRect(xCenter: xMiddle / w, yCenter: yMiddle / h, width: boxSize / w, height: boxSize / h,
                              rotation: rotation)
    }
}
