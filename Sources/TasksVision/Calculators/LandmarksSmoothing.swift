/// MediaPipe's `LandmarksSmoothingCalculator` with a one-euro filter (calculators/util/
/// landmarks_smoothing_calculator.cc and _utils.cc): every coordinate of every landmark through its own
/// `OneEuroFilter`. Normalized landmarks are filtered in pixels (x and z times the image width, y times its
/// height) and normalized back, their speed scaled by the inverse of the object's size: the mean side of the
/// OBJECT_SCALE_ROI rect in pixels, or of the landmarks' box without one; below 1e-6 the landmarks pass
/// through. World landmarks (`disableValueScaling`) are filtered as they are. A frame whose landmarks are
/// missing resets the filters (`reset()`), as the calculator does when its landmarks input is empty.
public struct LandmarksSmoothing: Sendable {
    public let minCutoff: Double, beta: Double, derivateCutoff: Double
    /// `disable_value_scaling`: the speed is not scaled by the object's size.
    public let disableValueScaling: Bool
    /// `min_allowed_object_scale`'s default.
    public static let minAllowedObjectScale: Float = 1e-6
    /// Three filters a landmark (x, y, z); empty until the first landmarks, and after a reset.
    var filters: [OneEuroFilter] = []

    /// The options are the calculator's float fields, widened to the filter's doubles as MediaPipe widens them
    /// (0.01 is 0.009999999776...).
    public init(minCutoff: Float, beta: Float, derivateCutoff: Float, disableValueScaling: Bool = false) {
        self.minCutoff = Double(minCutoff); self.beta = Double(beta); self.derivateCutoff = Double(derivateCutoff)
        self.disableValueScaling = disableValueScaling
    }

    /// The filters start again from the next landmarks.
    public mutating func reset() { filters = [] }

    /// NORM_LANDMARKS with IMAGE_SIZE and, if given, OBJECT_SCALE_ROI; `timestampMicroseconds` is the packet's.
    public mutating func smooth(_ landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int,
                                objectScaleRoi: NormalizedRect?, timestampMicroseconds: Int64) -> [NormalizedLandmark] {
        let w = Float(imageWidth), h = Float(imageHeight)
        let pixels = landmarks.map { lm -> Landmark in
            Landmark(x: lm.x * w, y: lm.y * h, z: lm.z * w, visibility: lm.visibility, presence: lm.presence)
        }
        let objectScale = objectScaleRoi.map { ($0.width * w + $0.height * h) / 2 }
        return apply(pixels, objectScale: objectScale, timestampMicroseconds: timestampMicroseconds).map { lm in
            NormalizedLandmark(x: lm.x / w, y: lm.y / h, z: lm.z / w, visibility: lm.visibility, presence: lm.presence)
        }
    }

    /// LANDMARKS (world landmarks, no image size).
    public mutating func smooth(_ landmarks: [Landmark], timestampMicroseconds: Int64) -> [Landmark] {
        apply(landmarks, objectScale: nil, timestampMicroseconds: timestampMicroseconds)
    }

    /// `OneEuroFilterImpl::Apply`.
    mutating func apply(_ landmarks: [Landmark], objectScale given: Float?,
                        timestampMicroseconds: Int64) -> [Landmark] {
        guard !landmarks.isEmpty else { reset(); return landmarks }
        if filters.count != landmarks.count * 3 {
            filters = Array(repeating: OneEuroFilter(minCutoff: minCutoff, beta: beta, derivateCutoff: derivateCutoff),
                            count: landmarks.count * 3)
        }
        var valueScale: Float = 1
        if !disableValueScaling {
            let objectScale = given ?? Self.objectScale(landmarks)
            if objectScale < Self.minAllowedObjectScale { return landmarks }
            valueScale = 1 / objectScale
        }
        let t = timestampMicroseconds * 1000
        var out = landmarks
        for i in landmarks.indices {
            out[i].x = filters[3 * i].apply(timestampNanoseconds: t, value: landmarks[i].x, valueScale: valueScale)
            out[i].y = filters[3 * i + 1].apply(timestampNanoseconds: t, value: landmarks[i].y, valueScale: valueScale)
            out[i].z = filters[3 * i + 2].apply(timestampNanoseconds: t, value: landmarks[i].z, valueScale: valueScale)
        }
        return out
    }

    /// `GetObjectScale` of landmarks: the mean side of their axis-aligned box.
    static func objectScale(_ landmarks: [Landmark]) -> Float {
        var minX = landmarks[0].x, maxX = landmarks[0].x, minY = landmarks[0].y, maxY = landmarks[0].y
        for lm in landmarks {
            minX = min(minX, lm.x); maxX = max(maxX, lm.x); minY = min(minY, lm.y); maxY = max(maxY, lm.y)
        }
        return ((maxX - minX) + (maxY - minY)) / 2
    }
}

/// MediaPipe's `VisibilitySmoothingCalculator` with a low-pass filter: each landmark's visibility through
/// its own `LowPassFilter` (alpha the weight of the new value); x, y, z and presence pass through.
public struct VisibilitySmoothing: Sendable {
    public let alpha: Float
    var filters: [LowPassFilter] = []

    public init(alpha: Float) { self.alpha = alpha }

    /// The filters start again from the next landmarks.
    public mutating func reset() { filters = [] }

    /// The visibilities filtered (an unset visibility reads as 0, as the protobuf getter gives it).
    public mutating func smooth(_ visibilities: [Float?]) -> [Float] {
        if filters.count != visibilities.count {
            filters = Array(repeating: LowPassFilter(), count: visibilities.count)
        }
        return visibilities.indices.map { filters[$0].apply(visibilities[$0] ?? 0, alpha: alpha) }
    }

    public mutating func smooth(_ landmarks: [NormalizedLandmark]) -> [NormalizedLandmark] {
        var out = landmarks
        for (i, v) in smooth(landmarks.map(\.visibility)).enumerated() { out[i].visibility = v }
        return out
    }

    public mutating func smooth(_ landmarks: [Landmark]) -> [Landmark] {
        var out = landmarks
        for (i, v) in smooth(landmarks.map(\.visibility)).enumerated() { out[i].visibility = v }
        return out
    }
}
