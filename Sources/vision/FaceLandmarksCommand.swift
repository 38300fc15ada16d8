import Foundation
import TasksVision

/// `vision face-landmarks [--num-faces N] [--blendshapes] [--matrices] [options] PATH... | --video ... | --stdin`
/// (MediaPipe FaceLandmarker).
enum FaceLandmarksCommand: TaskCommand {
    static let defaultModel = "face_landmarker.task"

    static let table = OptionTable(
        command: "face-landmarks", summary: "Face mesh, blendshapes and head pose (MediaPipe FaceLandmarker).",
        positional: TaskCommandOptions.positional,
        options: [
            TaskCommandOptions.model("face landmarker .task bundle", default: defaultModel),
            .number("--num-faces", "N", .atLeast(1), default: 1, "most faces to find"),
            .number("--min-face-detection-confidence", "X", .unitInterval, default: 0.5,
                    "minimum face detection score"),
            .number("--min-face-presence-confidence", "X", .unitInterval, default: 0.5,
                    "minimum face presence score of the landmark model"),
            .number("--min-tracking-confidence", "X", .unitInterval, default: 0.5,
                    "minimum overlap with the last frame's face to keep tracking it (video, live stream)"),
            .flag("--blendshapes", "give the 52 blendshape scores of each face"),
            .flag("--matrices", "give each face's 4x4 transformation matrix (and its head pose in the summary)"),
            .flag("--tongue-out", "give each face's tongue_out score (MediaPipe drops it)"),
            .flag("--smooth-all", "smooth every tracked face (video, live stream; MediaPipe smooths only one)"),
        ] + TaskCommandOptions.common)

    static let benchmarks = [
        BenchmarkEntry(name: "face-landmarks", photo: "face_frontal_1.png", sequence: "pose_dance_1",
                       reference: .init("FaceLandmarker", model: defaultModel)),
        BenchmarkEntry(name: "face-landmarks-video", mode: .video, photo: "face_frontal_1.png",
                       reference: .init("FaceLandmarker", model: defaultModel, video: true)),
        BenchmarkEntry(name: "face-landmarks-full", arguments: ["--blendshapes", "--matrices"],
                       photo: "face_frontal_1.png",
                       reference: .init("FaceLandmarker", model: defaultModel, options: fullReference)),
        BenchmarkEntry(name: "face-landmarks-full-video", arguments: ["--blendshapes", "--matrices"], mode: .video,
                       photo: "face_frontal_1.png",
                       reference: .init("FaceLandmarker", model: defaultModel, video: true, options: fullReference)),
    ]
    /// MediaPipe's options for blendshapes and matrices (1 is true).
    static let fullReference = ["output_face_blendshapes": 1, "output_facial_transformation_matrixes": 1]

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        return TaskMaker { setup in
            let model = try TaskCommandOptions.modelPath(o, default: defaultModel, kind: .faceLandmarkerBundle)
            let options = setup.options(FaceLandmarkerOptions(), model: model)
            options.numFaces = try o.int("--num-faces")
            options.minFaceDetectionConfidence = try o.float("--min-face-detection-confidence")
            options.minFacePresenceConfidence = try o.float("--min-face-presence-confidence")
            options.minTrackingConfidence = try o.float("--min-tracking-confidence")
            options.outputFaceBlendshapes = o.flag("--blendshapes")
            options.outputFacialTransformationMatrixes = o.flag("--matrices")
            options.outputTongueOut = o.flag("--tongue-out")
            options.smoothAllFaces = o.flag("--smooth-all")
            options.resultCallback = setup.callback(report)
            return LibraryFrameTask(try FaceLandmarker(options: options), roi: roi, report: report)
        }
    }

    /// Per face: its track, its three strongest blendshapes (not `_neutral`), its head pose.
    static func summary(_ r: FaceLandmarkerResult) -> String {
        let poses = r.headPoses
        let faces = r.faceLandmarks.indices.map { i -> String in
            var parts: [String] = []
            if let ids = r.trackingIds, ids.indices.contains(i) { parts.append("#\(ids[i])") }
            if r.faceBlendshapes.indices.contains(i) {
                let top = r.faceBlendshapes[i].categories.filter { $0.categoryName != "_neutral" }
                    .sorted { $0.score > $1.score }.prefix(3)
                parts.append(top.map { String(format: "%@ %.2f", $0.categoryName ?? "?", $0.score) }
                    .joined(separator: ", "))
            }
            if poses.indices.contains(i) {
                // Rounded first, + 0 turning -0 into 0.
                let (y, p, r) = (poses[i].yaw.rounded() + 0, poses[i].pitch.rounded() + 0, poses[i].roll.rounded() + 0)
                parts.append(String(format: "yaw %.0f pitch %.0f roll %.0f", y, p, r))
            }
            if let t = r.tongueOutScores, t.indices.contains(i) { parts.append(String(format: "tongue %.2f", t[i])) }
            return "[" + parts.joined(separator: "; ") + "]"
        }
        let n = r.faceLandmarks.count
        return "\(n) face\(n == 1 ? "" : "s")" + (faces.isEmpty || faces.allSatisfy { $0 == "[]" } ? ""
            : ": " + faces.joined(separator: " "))
    }

    static func report(_ result: FaceLandmarkerResult) -> FrameReport {
        FrameReport(result: result, summary: summary(result)) { overlay in
            let W = Float(overlay.width), H = Float(overlay.height)
            func draw(_ lms: [NormalizedLandmark], _ connections: [Connection], _ color: (UInt8, UInt8, UInt8)) {
                for c in connections where lms.indices.contains(c.start) && lms.indices.contains(c.end) {
                    let a = lms[c.start], b = lms[c.end]
                    overlay.line(a.x * W, a.y * H, b.x * W, b.y * H, color)
                }
            }
            for (i, lms) in result.faceLandmarks.enumerated() {
                draw(lms, FaceLandmarker.tesselationConnections(), (110, 110, 110))
                draw(lms, FaceLandmarker.faceOvalConnections() + FaceLandmarker.lipsConnections(), (0, 255, 0))
                draw(lms, FaceLandmarker.leftEyeConnections() + FaceLandmarker.leftEyebrowConnections(), (0, 200, 255))
                draw(lms, FaceLandmarker.rightEyeConnections() + FaceLandmarker.rightEyebrowConnections(),
                     (255, 160, 0))
                draw(lms, FaceLandmarker.leftIrisConnections() + FaceLandmarker.rightIrisConnections(), (255, 0, 0))
                if let ids = result.trackingIds, ids.indices.contains(i) {
                    let minY = lms.map(\.y).min() ?? 0, minX = lms.map(\.x).min() ?? 0
                    overlay.text("#\(ids[i])", minX * W, max(0, minY * H - Float(overlay.thickness * 14)),
                                 (255, 255, 0))
                }
            }
        }
    }
}
