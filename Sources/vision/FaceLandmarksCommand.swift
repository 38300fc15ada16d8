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
            .flag("--smooth-all", "smooth every tracked face (video, live stream; MediaPipe smooths only one)")
                .forVideoOnly(),
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

    /// Line widths for a face of these landmarks: the mesh's (1 pixel up to a face of 1,000) and the outlines'.
    static func meshWidths(_ lms: [NormalizedLandmark], width W: Float, height H: Float) -> (mesh: Int, outline: Int) {
        let xs = lms.map { $0.x * W }.filter(\.isFinite), ys = lms.map { $0.y * H }.filter(\.isFinite)
        let size = max((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0))
        guard size.isFinite, size > 0 else { return (1, 1) }
        return (max(1, Int(size / 1000)), max(1, Int(size / 250)))
    }

    /// The JSON result: MediaPipe's fields, then `headPoses`, each face's yaw, pitch and roll in degrees as the
    /// summary prints them (with --matrices; empty without).
    struct Output: Encodable {
        let result: FaceLandmarkerResult

        enum Key: String, CodingKey { case headPoses }

        func encode(to encoder: Encoder) throws {
            try result.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(result.headPoses, forKey: .headPoses)
        }
    }

    static func report(_ result: FaceLandmarkerResult) -> FrameReport {
        FrameReport(result: Output(result: result), summary: summary(result)) { overlay in
            let W = Float(overlay.width), H = Float(overlay.height)
            func segments(_ lms: [NormalizedLandmark], _ connections: [Connection]) -> [(Float, Float, Float, Float)] {
                connections.filter { lms.indices.contains($0.start) && lms.indices.contains($0.end) }.map { c in
                    (lms[c.start].x * W, lms[c.start].y * H, lms[c.end].x * W, lms[c.end].y * H)
                }
            }
            func draw(_ lms: [NormalizedLandmark], _ connections: [Connection], _ color: (UInt8, UInt8, UInt8),
                      width: Int) {
                for s in segments(lms, connections) { overlay.line(s.0, s.1, s.2, s.3, color, width: width) }
            }
            for (i, lms) in result.faceLandmarks.enumerated() {
                // Widths follow the face, not the image: the 2,556 mesh edges of a face 400 pixels tall are about
                // 13 pixels long, so the mesh is one pixel wide and blended, the outlines a little wider.
                let (mesh, outline) = meshWidths(lms, width: W, height: H)
                overlay.blendedLines(segments(lms, FaceLandmarker.tesselationConnections()), (200, 200, 200),
                                     width: mesh, alpha: 0.5)
                draw(lms, FaceLandmarker.faceOvalConnections() + FaceLandmarker.lipsConnections(), (0, 255, 0),
                     width: outline)
                draw(lms, FaceLandmarker.leftEyeConnections() + FaceLandmarker.leftEyebrowConnections(), (0, 200, 255),
                     width: outline)
                draw(lms, FaceLandmarker.rightEyeConnections() + FaceLandmarker.rightEyebrowConnections(), (255, 160, 0),
                     width: outline)
                draw(lms, FaceLandmarker.leftIrisConnections() + FaceLandmarker.rightIrisConnections(), (255, 0, 0),
                     width: outline)
                if let ids = result.trackingIds, ids.indices.contains(i) {
                    let minY = lms.map(\.y).min() ?? 0, minX = lms.map(\.x).min() ?? 0
                    overlay.text("#\(ids[i])", minX * W, max(0, minY * H - Float(overlay.thickness * 14)),
                                 (255, 255, 0))
                }
            }
        }
    }
}
