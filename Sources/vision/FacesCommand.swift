import Foundation
import TasksVision

/// `vision faces [options] PATH... | --video DIR|FILE|/dev/videoN`
enum FacesCommand {
    static let defaultModel = "blaze_face_short_range.tflite"

    static let table = OptionTable(
        command: "faces", summary: "Detect faces (BlazeFace, MediaPipe FaceDetector).",
        positional: TaskOptions.positional,
        options: [
            TaskOptions.model("face detector .tflite", default: defaultModel),
            .number("--min-detection-confidence", "X", .unitInterval, default: 0.5, "minimum score of a reported face"),
            .number("--min-suppression-threshold", "X", .unitInterval, default: 0.3,
                    "overlap (IoU) above which two faces are merged"),
        ] + TaskOptions.common)

    static func run(_ args: [String]) throws {
        let o = try table.parse(args)
        let roi = try TaskOptions.region(o)
        try TaskShell(o) { setup in
            let options = FaceDetectorOptions()
            options.baseOptions.modelAssetPath = try TaskOptions.modelPath(o, default: defaultModel,
                                                                           kind: .faceDetector)
            options.baseOptions.threads = setup.threads
            options.minDetectionConfidence = try o.float("--min-detection-confidence")
            options.minSuppressionThreshold = try o.float("--min-suppression-threshold")
            options.runningMode = setup.mode
            if setup.mode == .liveStream {
                options.resultCallback = { result, t in setup.deliver(result.map(report), timestamp: t) }
            }
            let detector = try FaceDetector(options: options)
            return TaskCalls.detection(detector, setup.mode, roi: roi, report)
        }.run()
    }

    static func report(_ result: FaceDetectorResult) -> FrameReport {
        let faces = result.detections.map { d in
            let b = d.boundingBox
            return String(format: "[%.0f,%.0f %.0fx%.0f] %.2f", b.minX, b.minY, b.width, b.height,
                          d.categories.first?.score ?? 0)
        }
        let n = result.detections.count
        let summary = "\(n) face\(n == 1 ? "" : "s")" + (faces.isEmpty ? "" : ": " + faces.joined(separator: " "))
        return FrameReport(result: result, summary: summary) { overlay in
            for d in result.detections {
                overlay.rect(d.boundingBox, (0, 255, 0))
                for k in d.keypoints ?? [] {
                    overlay.dot(Float(k.location.x) * Float(overlay.width), Float(k.location.y) * Float(overlay.height),
                                (255, 0, 0))
                }
                overlay.text(String(format: "%.2f", d.categories.first?.score ?? 0), Float(d.boundingBox.minX),
                             max(0, Float(d.boundingBox.minY) - Float(overlay.thickness * 14)), (255, 255, 0))
            }
        }
    }
}
