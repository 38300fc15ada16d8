#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LandmarkProjection {
    /// `LandmarkProjectionCalculator` given a NORM_RECT and IMAGE_DIMENSIONS (the face graph's form):
    /// through the crop's `GetRotatedSubRectToRectTransformMatrix` in pixels, z scaled by the length of
    /// the projected unit x segment. Equals `project(_:rect:)` for a square crop, up to rounding.
    public static func project(_ lms: [NormalizedLandmark], rect: NormalizedRect, imageWidth: Int,
                               imageHeight: Int) -> [NormalizedLandmark] {
        let roi = RotatedRect(centerX: rect.xCenter * Float(imageWidth), centerY: rect.yCenter * Float(imageHeight),
                              width: rect.width * Float(imageWidth), height: rect.height * Float(imageHeight),
                              rotation: rect.rotation)
        let m = ImageToTensor.transformMatrix(roi, imageWidth: imageWidth, imageHeight: imageHeight,
                                              flipHorizontally: false)
        return project(lms, matrix: m)
    }

    /// `LandmarkProjectionCalculator` given a PROJECTION_MATRIX (an image-to-tensor step's MATRIX, row-major
    /// 4x4): x and y through the matrix, z scaled by the length of the projected unit x segment.
    public static func project(_ lms: [NormalizedLandmark], matrix m: [Float]) -> [NormalizedLandmark] {
        guard m.count == 16 else { return lms }
        // CalculateZScale: (0, 0) and (1, 0) projected; std::pow on floats computes in double.
        let zero: Float = 0, one: Float = 1
        let ax = zero * m[0] + zero * m[1] + zero * m[2] + m[3], ay = zero * m[4] + zero * m[5] + zero * m[6] + m[7]
        let bx = one * m[0] + zero * m[1] + zero * m[2] + m[3], by = one * m[4] + zero * m[5] + zero * m[6] + m[7]
        let dx = Double(bx - ax), dy = Double(by - ay)
        let zScale = Float((dx * dx + dy * dy).squareRoot())
        return lms.map { lm in
            var out = lm
            out.x = lm.x * m[0] + lm.y * m[1] + lm.z * m[2] + m[3]
            out.y = lm.x * m[4] + lm.y * m[5] + lm.z * m[6] + m[7]
            out.z = zScale * lm.z
            return out
        }
    }
}

extension ImageToTensor {
    /// The crop of a normalized rect (stored pixels) into a `width` x `height` landmark-model input,
    /// stretched, replicated border, as the landmark graphs' `ImageToTensorCalculator`; nil for a zero rect
    /// (MediaPipe skips those).
    static func warp(_ image: MPImage, rect: NormalizedRect, width: Int, height: Int) -> [UInt8]? {
        let W = Float(image.pixelWidth), H = Float(image.pixelHeight)
        guard rect.width > 0 || rect.height > 0 else { return nil }
        let roi = RotatedRect(centerX: rect.xCenter * W, centerY: rect.yCenter * H, width: rect.width * W,
                              height: rect.height * H, rotation: rect.rotation)
        return warp(image, roi: roi, width: width, height: height, border: .replicate)
    }
}

/// MediaPipe's `LandmarksToDetectionCalculator`: the landmarks' bounding box as a detection whose
/// keypoints are the landmarks. The maxima start at `numeric_limits<float>::min()` as in MediaPipe.
public enum LandmarksToDetection {
    public static func detection(_ lms: [NormalizedLandmark]) -> RawDetection {
        var minX = Float.greatestFiniteMagnitude, minY = Float.greatestFiniteMagnitude
        var maxX = Float.leastNormalMagnitude, maxY = Float.leastNormalMagnitude
        for l in lms {
            minX = min(minX, l.x); minY = min(minY, l.y); maxX = max(maxX, l.x); maxY = max(maxY, l.y)
        }
        return RawDetection(score: 0, classId: 0, box: RelativeBox(xmin: minX, ymin: minY, width: maxX - minX,
                                                                   height: maxY - minY),
                            keypoints: lms.map { SIMD2($0.x, $0.y) })
    }
}

/// The face rects of face_detector_graph.cc and face_landmarks_detector_graph.cc.
public enum FaceRects {
    /// A face detection's expanded rect (`EXPANDED_FACE_RECTS`): rotated so the eyes (keypoints 0 to 1)
    /// are level, scaled by 1.5 (not squared).
    public static func fromDetection(_ d: RawDetection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let r = DetectionsToRects.rect(d, imageWidth: imageWidth, imageHeight: imageHeight, startKeypoint: 0,
                                       endKeypoint: 1, targetAngle: 0)
        return RectTransformation(scaleX: 1.5, scaleY: 1.5).apply(r, imageWidth: imageWidth,
                                                                  imageHeight: imageHeight)
    }

    /// The next frame's rect from the 478 landmarks: their box, rotated so landmark 33 to 263 (the eye
    /// corners) is level, squared on its long side and scaled by 1.5.
    public static func fromLandmarks(_ lms: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let r = DetectionsToRects.rect(LandmarksToDetection.detection(lms), imageWidth: imageWidth,
                                       imageHeight: imageHeight, startKeypoint: 33, endKeypoint: 263, targetAngle: 0)
        return RectTransformation(scaleX: 1.5, scaleY: 1.5, squareLong: true).apply(r, imageWidth: imageWidth,
                                                                                    imageHeight: imageHeight)
    }
}

/// The face graph's `LandmarksSmoothingCalculator` (face_landmarks_detector_graph.cc): one-euro filters
/// (min cutoff 0.05, beta 80, derivative cutoff 1) on the landmarks in pixels (z on the x scale), the
/// speed scaled by the face's size, the mean side of the landmarks' pixel box; a frame without the face
/// resets the filters. One state per track ID: MediaPipe smooths only face 0 with `numFaces` 1
/// (`smooth(faces:)` with one face), `FaceLandmarkerOptions.smoothAllFaces` every tracked face.
public struct FaceLandmarkSmoothing: Sendable {
    var states: [Int: [OneEuroFilter]] = [:]

    public init() {}

    /// Smooths one frame's faces, given as (track ID, landmarks); tracks missing from the frame end.
    public mutating func smooth(faces: [(id: Int, landmarks: [NormalizedLandmark])], imageWidth: Int, imageHeight: Int,
                                timestampMilliseconds: Int) -> [[NormalizedLandmark]] {
        let live = Set(faces.map(\.id))
        states = states.filter { live.contains($0.key) }
        return faces.map { face in
            var filters = states[face.id] ?? []
            let out = Self.smooth(face.landmarks, filters: &filters, imageWidth: imageWidth, imageHeight: imageHeight,
                                  timestampNanoseconds: Int64(timestampMilliseconds) * 1_000_000)
            states[face.id] = filters
            return out
        }
    }

    static func smooth(_ lms: [NormalizedLandmark], filters: inout [OneEuroFilter], imageWidth: Int,
                       imageHeight: Int, timestampNanoseconds t: Int64) -> [NormalizedLandmark] {
        guard !lms.isEmpty else { filters = []; return lms }
        let W = Float(imageWidth), H = Float(imageHeight)
        let px = lms.map { ($0.x * W, $0.y * H, $0.z * W) }
        if filters.count != lms.count * 3 {
            filters = Array(repeating: OneEuroFilter(minCutoff: 0.05, beta: 80, derivateCutoff: 1), count: lms.count * 3)
        }
        var minX = px[0].0, maxX = px[0].0, minY = px[0].1, maxY = px[0].1
        for p in px { minX = min(minX, p.0); maxX = max(maxX, p.0); minY = min(minY, p.1); maxY = max(maxY, p.1) }
        let objectScale = ((maxX - minX) + (maxY - minY)) / 2
        guard objectScale >= 1e-6 else { return lms }
        let scale = 1 / objectScale
        var out = lms
        for i in lms.indices {
            out[i].x = filters[3 * i].apply(timestampNanoseconds: t, value: px[i].0, valueScale: scale) / W
            out[i].y = filters[3 * i + 1].apply(timestampNanoseconds: t, value: px[i].1, valueScale: scale) / H
            out[i].z = filters[3 * i + 2].apply(timestampNanoseconds: t, value: px[i].2, valueScale: scale) / W
        }
        return out
    }
}

/// A head's orientation in degrees, from a facial transformation matrix (beyond MediaPipe).
///
/// The matrix takes the canonical face model into MediaPipe's metric camera space (x to the image's
/// right, y up, z towards the viewer). Its rotation is read as R = Ry(yaw) * Rx(pitch) * Rz(roll):
/// - yaw > 0: the face turns towards the image's right (the person's left);
/// - pitch > 0: the face looks down;
/// - roll > 0: the head tilts counter-clockwise in the image (its top towards the image's left).
/// All three are 0 for a face looking straight into the camera; pitch lies in [-90, 90].
public struct HeadPose: Sendable, Equatable, Codable {
    public var yaw: Float, pitch: Float, roll: Float

    public init(yaw: Float, pitch: Float, roll: Float) { self.yaw = yaw; self.pitch = pitch; self.roll = roll }

    /// The pose of a 4x4 matrix given row-major; nil when it has no rotation (a zero column).
    public init?(rowMajor m: [Float]) {
        guard m.count >= 11 else { return nil }
        // Columns normalized first, so a scaled rotation reads the same.
        var r = [[Double]](repeating: [0, 0, 0], count: 3)
        for c in 0..<3 {
            let col = (0..<3).map { Double(m[$0 * 4 + c]) }
            let n = (col[0] * col[0] + col[1] * col[1] + col[2] * col[2]).squareRoot()
            guard n > 0, n.isFinite else { return nil }
            for row in 0..<3 { r[row][c] = col[row] / n }
        }
        let degrees = 180 / Double.pi
        pitch = Float(asin(max(-1, min(1, -r[1][2]))) * degrees)
        yaw = Float(atan2(r[0][2], r[2][2]) * degrees)
        roll = Float(atan2(r[1][0], r[1][1]) * degrees)
    }
}
