import Foundation
import TasksVision

/// `vision palms`: palm detection alone (HandDetector), the first stage of `vision hands`.
enum PalmsCommand {
    static let defaultModel = "hand_landmarker.task"

    static let table = OptionTable(
        command: "palms", summary: "Palms and the hand rectangles the landmarker would crop (HandDetector).",
        positional: TaskOptions.positional,
        options: [
            TaskOptions.model("hand landmarker bundle or palm detection .tflite", default: defaultModel),
            .number("--num-hands", "N", .atLeast(1), default: 1, "most palms to report"),
            .number("--min-hand-detection-confidence", "X", .unitInterval, default: 0.5,
                    "minimum palm detection score"),
        ] + TaskOptions.common)

    static func run(_ args: [String]) throws {
        let o = try table.parse(args)
        let roi = try TaskOptions.region(o)
        try TaskShell(o) { setup in
            let path = try o.string("--model") ?? TaskCommandSupport.defaultModel(defaultModel)
            let kinds = ModelKind.inspect(path)
            let accepted: [ModelKind] = [.handLandmarkerBundle, .gestureRecognizerBundle, .palmDetector]
            if let other = kinds.first, !kinds.contains(where: accepted.contains) {
                throw UsageError("palms needs a palm detection .tflite or a hand landmarker bundle; "
                                 + "\((path as NSString).lastPathComponent) is \(other.description)")
            }
            let options = HandDetectorOptions()
            options.baseOptions.modelAssetPath = path
            options.baseOptions.threads = setup.threads
            options.numHands = try o.int("--num-hands")
            options.minHandDetectionConfidence = try o.float("--min-hand-detection-confidence")
            options.runningMode = setup.mode
            if setup.mode == .liveStream {
                options.resultCallback = { result, t in setup.deliver(result.map(report), timestamp: t) }
            }
            let detector = try HandDetector(options: options)
            return TaskCalls.detection(detector, setup.mode, roi: roi, report)
        }.run()
    }

    static func report(_ result: HandDetectorResult) -> FrameReport {
        let palms = result.detections.map { d in
            let b = d.boundingBox
            return String(format: "[%.0f,%.0f %.0fx%.0f] %.2f", b.minX, b.minY, b.width, b.height,
                          d.categories.first?.score ?? 0)
        }
        let n = result.detections.count
        let summary = "\(n) palm\(n == 1 ? "" : "s")" + (palms.isEmpty ? "" : ": " + palms.joined(separator: " "))
        return FrameReport(result: result, summary: summary) { overlay in
            let W = Float(overlay.width), H = Float(overlay.height)
            for d in result.detections {
                overlay.rect(d.boundingBox, (0, 255, 0))
                for k in d.keypoints ?? [] {
                    overlay.dot(Float(k.location.x) * W, Float(k.location.y) * H, (255, 0, 0))
                }
            }
            for r in result.handRectangles {
                // The rotated hand rectangle: its corners from the centre, the half sides turned by the rotation.
                let (c, s) = (cos(r.rotation), sin(r.rotation))
                let hw = r.width * W / 2, hh = r.height * H / 2
                let cx = r.xCenter * W, cy = r.yCenter * H
                let corners = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)].map {
                    (cx + $0.0 * c - $0.1 * s, cy + $0.0 * s + $0.1 * c)
                }
                for i in 0..<4 {
                    let a = corners[i], b = corners[(i + 1) % 4]
                    overlay.line(a.0, a.1, b.0, b.1, (255, 255, 0))
                }
            }
        }
    }
}
