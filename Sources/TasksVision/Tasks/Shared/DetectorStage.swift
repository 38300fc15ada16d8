import TasksVisionEngine

/// The detector subgraph the face, palm and pose pipelines share, as MediaPipe's detector
/// graphs run it: the whole image (or a region of it) letterboxed into the model's input (zero
/// border, mirrored images flipped back), inference, SSD decoding against the anchors, weighted
/// non-maximum suppression. The caller takes the kept detections into image coordinates its own way.
struct DetectorStage {
    let resources: ModelResources
    let anchors: [Anchor]
    let decoding: DetectionDecoding
    let range: ImageToTensor.ValueRange
    let suppressionThreshold: Float

    /// What one run found, with the crop it ran on.
    struct Found {
        /// Kept detections, normalized to the letterboxed model input.
        var detections: [RawDetection]
        var roi: RotatedRect
        var padding: LetterboxPadding
        var flip: Bool
        var imageWidth: Int
        var imageHeight: Int

        /// Through the crop's matrix into normalized stored-pixel coordinates (`DetectionProjectionCalculator`).
        func projected() -> [RawDetection] {
            let matrix = ImageToTensor.transformMatrix(roi, imageWidth: imageWidth, imageHeight: imageHeight,
                                                       flipHorizontally: flip)
            return detections.map { DetectionProjection.project($0, matrix: matrix) }
        }

        /// With the letterbox removed only (`DetectionLetterboxRemovalCalculator`), the ROI's rotation kept.
        func letterboxRemoved() -> [RawDetection] {
            detections.map { LetterboxRemoval.detection($0, padding) }
        }
    }

    /// The detections of `image`, or of its region `region` (stored pixels; the whole image turned by its
    /// orientation when nil), letterboxed into the model's input. Not reentrant: one caller at a time per
    /// interpreter.
    func run(_ image: MPImage, region: RotatedRect? = nil) -> Found {
        let (w, h) = (resources.inputWidth, resources.inputHeight)
        var roi = region ?? ImageToTensor.fullImageRoi(image)
        let pad = ImageToTensor.padRoi(&roi, tensorWidth: w, tensorHeight: h)
        let flip = image.orientation.isMirrored
        let pixels = ImageToTensor.warp(image, roi: roi, flipHorizontally: flip, width: w, height: h, border: .zero)
        let interpreter = resources.interpreter
        interpreter.stageInput(0) { ImageToTensor.convert(pixels, range: range, into: $0) }
        interpreter.invoke()
        let decoded = interpreter.stageOutput(0) { boxes in
            interpreter.stageOutput(1) { scores in
                TensorsToDetections.decode(boxes: boxes, scores: scores, anchors: anchors, options: decoding)
            }
        }
        let kept = WeightedNonMaxSuppression.suppress(decoded, threshold: suppressionThreshold)
        return Found(detections: kept, roi: roi,
                     padding: LetterboxPadding(left: pad.left, top: pad.top, right: pad.right, bottom: pad.bottom),
                     flip: flip, imageWidth: image.pixelWidth, imageHeight: image.pixelHeight)
    }
}
