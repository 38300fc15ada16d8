import Foundation
import TasksVision

/// `vision face-landmarks [--num-faces N] [--blendshapes] [--matrices] [options] PATH... | --video ... | --stdin`
/// (MediaPipe FaceLandmarker).
enum FaceLandmarksCommand {
    static let defaultModel = "face_landmarker.task"

    static let table = OptionTable(
        command: "face-landmarks", summary: "Face mesh, blendshapes and head pose (MediaPipe FaceLandmarker).",
        positional: TaskOptions.positional,
        options: [
            TaskOptions.model("face landmarker .task bundle", default: defaultModel),
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
        ] + TaskOptions.common)

    static func run(_ args: [String]) throws {
        let o = try table.parse(args)
        let roi = try TaskOptions.region(o)
        try TaskShell(o) { setup in
            let options = FaceLandmarkerOptions()
            options.baseOptions.modelAssetPath = try TaskOptions.modelPath(o, default: defaultModel,
                                                                           kind: .faceLandmarkerBundle)
            options.baseOptions.threads = setup.threads
            options.runningMode = setup.mode
            options.numFaces = try o.int("--num-faces")
            options.minFaceDetectionConfidence = try o.float("--min-face-detection-confidence")
            options.minFacePresenceConfidence = try o.float("--min-face-presence-confidence")
            options.minTrackingConfidence = try o.float("--min-tracking-confidence")
            options.outputFaceBlendshapes = o.flag("--blendshapes")
            options.outputFacialTransformationMatrixes = o.flag("--matrices")
            options.outputTongueOut = o.flag("--tongue-out")
            options.smoothAllFaces = o.flag("--smooth-all")
            if setup.mode == .liveStream {
                options.resultCallback = { result, t in setup.deliver(result.map(report), timestamp: t) }
            }
            let landmarker = try FaceLandmarker(options: options)
            return TaskCalls.detection(landmarker, setup.mode, roi: roi, report)
        }.run()
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
                draw(lms, FaceLandmarker.tesselationConnections, (110, 110, 110))
                draw(lms, FaceLandmarker.faceOvalConnections + FaceLandmarker.lipsConnections, (0, 255, 0))
                draw(lms, FaceLandmarker.leftEyeConnections + FaceLandmarker.leftEyebrowConnections, (0, 200, 255))
                draw(lms, FaceLandmarker.rightEyeConnections + FaceLandmarker.rightEyebrowConnections, (255, 160, 0))
                draw(lms, FaceLandmarker.leftIrisConnections + FaceLandmarker.rightIrisConnections, (255, 0, 0))
                if let ids = result.trackingIds, ids.indices.contains(i) {
                    let minY = lms.map(\.y).min() ?? 0, minX = lms.map(\.x).min() ?? 0
                    overlay.text("#\(ids[i])", minX * W, max(0, minY * H - Float(overlay.thickness * 14)),
                                 (255, 255, 0))
                }
            }
        }
    }
}
