import Foundation
import TasksVision
import TasksVisionImageIO

/// `vision pose`: ML Kit-style pose detection (BlazePose lite, or full with --accurate).
enum PoseCommand {
    /// MediaPipe's pose connections, for the overlay.
    static let connections: [(Int, Int)] = [
        (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13), (13, 15), (15, 17),
        (15, 19), (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20), (11, 23), (12, 24),
        (23, 24), (23, 25), (24, 26), (25, 27), (26, 28), (27, 29), (28, 30), (29, 31), (30, 32), (27, 31), (28, 32),
    ]

    static let liteModel = "pose_landmarker_lite.task", fullModel = "pose_landmarker_full.task"

    static let table = OptionTable(
        command: "pose", summary: "Body pose, 33 landmarks (ML Kit PoseDetector on BlazePose).",
        positional: TaskOptions.positional,
        options: [
            .flag("--accurate", "use the full model (AccuratePoseDetectorOptions) instead of the lite one"),
            .choice("--mode", ["stream", "single-image"], default: nil, note: "stream with --video, else single-image",
                    "stream follows the person from frame to frame; single-image detects afresh each time"),
            .text("--model", "M", default: "Models/\(liteModel) (\(fullModel) with --accurate)",
                  "the pose landmarker .task bundle to use (a path, or bundle.task:member)"),
            .text("--masks", "DIR", default: "none",
                  "write each input's segmentation mask (the people found, 0-255) as DIR/<name>.png"),
        ] + PoseClassifyOptions.specs + TaskOptions.common,
        notes: [PoseSamplesCommand.note])

    struct Output: Encodable { let poses: [Pose] }

    static func run(_ args: [String]) throws {
        let o = try table.parse(args)
        let masks = o.string("--masks")
        if let masks { try OutputFile.checkWritable(directory: masks, option: "--masks") }
        let roi = try TaskOptions.region(o)?.regionOfInterest
        // Pose classification (PoseClassifyOptions.swift): the samples read once, a processor per task.
        let samples = try PoseClassifyOptions.samples(o)
        // Stream mode over still images tracks from one image to the next.
        try TaskShell(o, imagesKeepState: o.choice("--mode") == "stream") { setup in
            let accurate = o.flag("--accurate")
            let options: CommonPoseDetectorOptions = accurate ? AccuratePoseDetectorOptions() : PoseDetectorOptions()
            options.modelAssetPath = try TaskOptions.modelPath(o, default: accurate ? fullModel : liteModel,
                                                               kind: .poseLandmarkerBundle)
            options.threads = setup.threads
            switch o.choice("--mode") {
            case "stream"?: options.detectorMode = .stream
            case "single-image"?: options.detectorMode = .singleImage
            default: options.detectorMode = setup.mode == .image ? .singleImage : .stream
            }
            if setup.mode == .liveStream && options.detectorMode != .stream {
                throw UsageError("--mode single-image does not apply to a live stream")
            }
            options.outputSegmentationMasks = masks != nil
            let stream = options.detectorMode == .stream
            let classifier = try samples.map { try PoseClassifyOptions($0, isStreamMode: stream) }
            if let classifier, classifier.isStreamMode, setup.mode != .image {
                let json = o.flag("--json")
                setup.reporter?.closingLine = { try classifier.finalLine(json: json) }
            }
            let detector = PoseDetector.poseDetector(options: options)
            // A bad model is one error before the first input, not one per frame.
            try detector.validate()
            func visionImage(_ image: MPImage) -> VisionImage {
                let v = VisionImage(image: image)
                v.regionOfInterest = roi
                return v
            }
            func report(_ poses: [Pose], _ timestamp: Int) -> FrameReport {
                var r = PoseCommand.report(poses)
                if let classifier { r = classifier.report(poses, timestamp: timestamp, base: r) }
                if let masks {
                    r.write = { frame, image in
                        try writeMask(poses, image: image, to: masks + "/" + frame.stem + ".png", source: frame.file)
                    }
                }
                return r
            }
            switch setup.mode {
            case .image:
                // Stream mode over still images: give each a later timestamp than the last.
                var last = -1
                return .image { image in
                    last += 33
                    return report(try detector.results(in: visionImage(image),
                                                       timestampInMilliseconds: stream ? last : nil), last)
                }
            case .video:
                return .video {
                    report(try detector.results(in: visionImage($0), timestampInMilliseconds: stream ? $1 : nil), $1)
                }
            case .liveStream:
                let queue = LiveQueue()
                return .live(submit: { image, t in
                    queue.submit {
                        let result = Result {
                            report(try detector.results(in: visionImage(image), timestampInMilliseconds: t), t)
                        }
                        setup.deliver(result, timestamp: t)
                    }
                }, drain: queue.drain)
            }
        }.run()
    }

    /// The poses' masks as one 8-bit gray PNG of the displayed image's size (the largest value of
    /// any pose at each pixel, rounded; 0 where nobody is).
    static func writeMask(_ poses: [Pose], image: MPImage, to path: String, source: String? = nil) throws {
        var pixels = [UInt8](repeating: 0, count: image.width * image.height)
        for mask in poses.compactMap(\.segmentationMask)
            where mask.width == image.width && mask.height == image.height {
            for (i, v) in mask.float32Data.enumerated() {
                pixels[i] = max(pixels[i], UInt8(min(max(v, 0), 1) * 255 + 0.5))
            }
        }
        try OutputFile.makeFolder((path as NSString).deletingLastPathComponent)
        let mask = DecodedImage(width: image.width, height: image.height, channels: 1, pixels: pixels)
        try OutputFile.write(PNG.encode(width: mask.width, height: mask.height, channels: 1, pixels: mask.pixels),
                             to: path, source: source)
    }

    static func report(_ poses: [Pose]) -> FrameReport {
        let summary = poses.first.map { p -> String in
            let visible = p.landmarks.filter { $0.inFrameLikelihood > 0.5 }.count
            let nose = p.landmark(ofType: .nose).position
            return String(format: ": nose at (%.0f, %.0f), %d of 33 landmarks in frame", nose.x, nose.y, visible)
        } ?? ""
        let line = "\(poses.count) pose\(poses.count == 1 ? "" : "s")\(summary)"
        return FrameReport(result: Output(poses: poses), summary: line) { overlay in
            for p in poses {
                for (a, b) in connections where p.landmarks.indices.contains(a) && p.landmarks.indices.contains(b) {
                    let pa = p.landmarks[a], pb = p.landmarks[b]
                    if pa.inFrameLikelihood > 0.5 && pb.inFrameLikelihood > 0.5 {
                        overlay.line(Float(pa.position.x), Float(pa.position.y),
                                     Float(pb.position.x), Float(pb.position.y),
                                     (0, 255, 0))
                    }
                }
                for lm in p.landmarks where lm.inFrameLikelihood > 0.5 {
                    overlay.dot(Float(lm.position.x), Float(lm.position.y), (255, 0, 0))
                }
            }
        }
    }
}
