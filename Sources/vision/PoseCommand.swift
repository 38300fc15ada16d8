import Foundation
import TasksVision

/// `vision pose`: ML Kit-style pose detection (BlazePose lite, or full with --accurate).
enum PoseCommand {
    /// MediaPipe's pose connections, for the overlay.
    static let connections: [(Int, Int)] = [
        (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13), (13, 15), (15, 17), (15, 19),
        (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20), (11, 23), (12, 24), (23, 24), (23, 25),
        (24, 26), (25, 27), (26, 28), (27, 29), (28, 30), (29, 31), (30, 32), (27, 31), (28, 32),
    ]

    struct Output: Encodable { let poses: [Pose] }

    static func run(_ args: [String]) throws {
        let parser = try OptionParser(args, valued: TaskCommandSupport.commonValued.union(["--mode"]), flags: TaskCommandSupport.commonFlags.union(["--accurate"]))
        if parser.positional.isEmpty && parser.value("--video") == nil {
            throw UsageError("usage: vision pose [--accurate] [--mode stream|single-image] [--model M] [--orientation O] [--ignore-exif] [--json] [--overlay DIR] (PATH... | --video DIR [--fps N])")
        }
        let options: CommonPoseDetectorOptions = parser.flags.contains("--accurate") ? AccuratePoseDetectorOptions() : PoseDetectorOptions()
        options.modelAssetPath = try parser.value("--model")
            ?? TaskCommandSupport.defaultModel(parser.flags.contains("--accurate") ? "pose_landmarker_full.task" : "pose_landmarker_lite.task")
        options.threads = try parser.int("--threads", default: 1)
        switch parser.value("--mode") {
        case nil: options.detectorMode = parser.value("--video") != nil ? .stream : .singleImage
        case "stream": options.detectorMode = .stream
        case "single-image": options.detectorMode = .singleImage
        case let other?: throw UsageError("--mode takes stream or single-image, got '\(other)'")
        }
        let detector = try PoseDetector.poseDetector(options: options)
        let json = parser.flags.contains("--json")
        var lastTimestamp = -1
        try TaskCommandSupport.forEachInput(parser) { file, image, timestamp in
            // Stream mode over still images: give each a later timestamp than the last.
            let t = timestamp ?? (lastTimestamp + 33)
            lastTimestamp = t
            let poses = try detector.results(in: VisionImage(image: image), timestampInMilliseconds: options.detectorMode == .stream ? t : nil)
            if json {
                try TaskCommandSupport.printJSON(file: file, image: image, timestamp: timestamp, result: Output(poses: poses))
            } else {
                let summary = poses.first.map { p -> String in
                    let visible = p.landmarks.filter { $0.inFrameLikelihood > 0.5 }.count
                    let nose = p.landmark(ofType: .nose).position
                    return String(format: ": nose at (%.0f, %.0f), %d of 33 landmarks in frame", nose.x, nose.y, visible)
                } ?? ""
                print("\(file): \(poses.count) pose\(poses.count == 1 ? "" : "s")\(summary)")
            }
            if let dir = parser.value("--overlay") {
                var overlay = Overlay(image)
                for p in poses {
                    for (a, b) in connections {
                        let pa = p.landmarks[a], pb = p.landmarks[b]
                        if pa.inFrameLikelihood > 0.5 && pb.inFrameLikelihood > 0.5 {
                            overlay.line(Float(pa.position.x), Float(pa.position.y), Float(pb.position.x), Float(pb.position.y), (0, 255, 0))
                        }
                    }
                    for lm in p.landmarks where lm.inFrameLikelihood > 0.5 { overlay.dot(Float(lm.position.x), Float(lm.position.y), (255, 0, 0)) }
                }
                try overlay.write(try Overlay.path(in: dir, for: file))
            }
        }
    }
}
