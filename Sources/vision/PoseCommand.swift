import Foundation
import TasksVision

/// `vision pose`: ML Kit-style pose detection (BlazePose lite, or full with --accurate).
enum PoseCommand: TaskCommand {
    /// MediaPipe's pose connections, for the overlay.
    static let connections: [(Int, Int)] = [
        (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13), (13, 15), (15, 17),
        (15, 19), (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20), (11, 23), (12, 24),
        (23, 24), (23, 25), (24, 26), (25, 27), (26, 28), (27, 29), (28, 30), (29, 31), (30, 32), (27, 31), (28, 32),
    ]

    static let liteModel = "pose_landmarker_lite.task", fullModel = "pose_landmarker_full.task"

    static let table = OptionTable(
        command: "pose", summary: "Body pose, 33 landmarks (ML Kit PoseDetector on BlazePose).",
        positional: TaskCommandOptions.positional,
        options: [
            .flag("--accurate", "use the full model (AccuratePoseDetectorOptions) instead of the lite one"),
            .choice("--mode", ["stream", "single-image"], default: nil, note: "stream with --video, else single-image",
                    "stream follows the person from frame to frame; single-image detects afresh each time"),
            .text("--model", "M", default: "Models/\(liteModel) (\(fullModel) with --accurate)",
                  "the pose landmarker .task bundle to use (a path, or bundle.task:member)"),
            .text("--masks", "DIR", default: "none",
                  "write each input's segmentation mask (the people found, 0-255) as DIR/<name>.png (a folder of its "
                  + "own: the --overlay folder would take the same names)"),
        ] + PoseClassificationReporter.specs + TaskCommandOptions.common,
        ownOptions: PoseClassificationReporter.specs.map(\.name),
        notes: [PoseSamplesCommand.note])

    struct Output: Encodable { let poses: [Pose] }

    /// Stream mode over the same still image, timestamps 33 ms apart; MediaPipe's in video mode.
    static let benchmarks = [
        BenchmarkEntry(name: "pose", photo: "pose_standing_1.png", sequence: "pose_dance_1",
                       reference: reference(liteModel, video: false)),
        BenchmarkEntry(name: "pose-stream", arguments: ["--mode", "stream"], photo: "pose_standing_1.png",
                       reference: reference(liteModel, video: true)),
        BenchmarkEntry(name: "pose-accurate", arguments: ["--accurate"], photo: "pose_standing_1.png",
                       reference: reference(fullModel, video: false)),
        BenchmarkEntry(name: "pose-accurate-stream", arguments: ["--accurate", "--mode", "stream"],
                       photo: "pose_standing_1.png", reference: reference(fullModel, video: true)),
    ]

    static func reference(_ model: String, video: Bool) -> BenchmarkEntry.Reference {
        .init("PoseLandmarker", model: model, video: video, options: ["num_poses": 1])
    }

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)?.regionOfInterest
        // Pose classification (PoseClassificationReporter.swift): the samples read once, a reporter per task.
        let samples = try PoseClassificationReporter.samples(o)
        // Stream mode over still images tracks from one image to the next.
        return TaskMaker(imagesKeepState: o.choice("--mode") == "stream") { setup in
            let accurate = o.flag("--accurate")
            let options: CommonPoseDetectorOptions = accurate ? AccuratePoseDetectorOptions() : PoseDetectorOptions()
            options.modelAssetPath = try TaskCommandOptions.modelPath(o, default: accurate ? fullModel : liteModel,
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
            options.outputSegmentationMasks = o.isSet("--masks")
            let classifier = try samples.map {
                try PoseClassificationReporter($0, isStreamMode: options.detectorMode == .stream)
            }
            let detector = PoseDetector.poseDetector(options: options)
            // A bad model is one error before the first input, not one per frame.
            try detector.validate()
            return PoseFrameTask(detector, options: options, roi: roi,
                                 classifier: classifier, setup: setup, json: o.flag("--json"))
        }
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

/// ML Kit's `PoseDetector` as a `FrameTask`: stream mode gives each still image a later timestamp than the
/// last, and live frames go through a `LiveQueue` (the detector has no asynchronous call of its own).
final class PoseFrameTask: FrameTask {
    let detector: PoseDetector
    let stream: Bool
    let roi: CGRect?
    let classifier: PoseClassificationReporter?
    let masks: Bool
    let setup: FrameTaskSetup
    let json: Bool
    private let queue = LiveQueue()
    private var last = -1

    init(_ detector: PoseDetector, options: CommonPoseDetectorOptions, roi: CGRect?,
         classifier: PoseClassificationReporter?, setup: FrameTaskSetup, json: Bool) {
        self.detector = detector
        stream = options.detectorMode == .stream
        masks = options.outputSegmentationMasks
        self.roi = roi
        self.classifier = classifier
        self.setup = setup
        self.json = json
    }

    private func run(_ image: MPImage, _ timestamp: Int) throws -> FrameReport {
        let v = VisionImage(image: image)
        v.regionOfInterest = roi
        let poses = try detector.results(in: v, timestampInMilliseconds: stream ? timestamp : nil)
        var r = PoseCommand.report(poses)
        if let classifier { r = classifier.report(poses, timestamp: timestamp, base: r) }
        if masks { r.masks = [FrameMask.largest(of: poses.compactMap(\.segmentationMask))] }
        return r
    }

    func image(_ image: MPImage) throws -> FrameReport {
        last += 33
        return try run(image, last)
    }

    func video(_ image: MPImage, timestamp: Int) throws -> FrameReport { try run(image, timestamp) }

    func submit(_ image: MPImage, timestamp: Int) throws -> Bool {
        queue.submit { [self] in setup.deliver(Result { try run(image, timestamp) }, timestamp: timestamp) }
    }

    func drain() { queue.drain() }

    /// The repetitions counted over a video or stream.
    func closingLine() throws -> String? {
        guard let classifier, classifier.isStreamMode, setup.mode != .image else { return nil }
        return try classifier.finalLine(json: json)
    }
}
