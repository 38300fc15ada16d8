import Foundation
import TasksVision

/// `vision palms`: palm detection alone (HandDetector), the first stage of `vision hands`.
enum PalmsCommand: TaskCommand {
    static let defaultModel = "hand_landmarker.task"

    static let table = OptionTable(
        command: "palms", summary: "Palms and the hand rectangles the landmarker would crop (HandDetector).",
        positional: TaskCommandOptions.positional,
        options: [
            TaskCommandOptions.model("hand landmarker bundle or palm detection .tflite", default: defaultModel),
            .number("--num-hands", "N", .atLeast(1), default: 1, "most palms to report"),
            .number("--min-hand-detection-confidence", "X", .unitInterval, default: 0.5,
                    "minimum palm detection score"),
        ] + TaskCommandOptions.common)

    /// Timed with the whole hand landmarker on the same frames, for comparison.
    static let benchmarks = [BenchmarkEntry(name: "palms", arguments: ["--num-hands", "2"], photo: "hands_two_1.png",
                                            alsoTimes: ["hands"])]

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        return TaskMaker { setup in
            let path = try o.string("--model") ?? TaskCommandSupport.defaultModel(defaultModel)
            let kinds = ModelKind.inspect(path)
            let accepted: [ModelKind] = [.handLandmarkerBundle, .gestureRecognizerBundle, .palmDetector]
            if let other = kinds.first, !kinds.contains(where: accepted.contains) {
                throw UsageError("palms needs a palm detection .tflite or a hand landmarker bundle; "
                                 + "\(PathText.lastComponent(path)) is \(other.description)")
            }
            let options = setup.options(HandDetectorOptions(), model: path)
            options.numHands = try o.int("--num-hands")
            options.minHandDetectionConfidence = try o.float("--min-hand-detection-confidence")
            options.resultCallback = setup.callback(report)
            return LibraryFrameTask(try HandDetector(options: options), roi: roi, report: report)
        }
    }

    static func report(_ result: HandDetectorResult) -> FrameReport {
        FrameReport(result: result, summary: Overlay.summary(result.detections, noun: "palm")) { overlay in
            let W = Float(overlay.width), H = Float(overlay.height)
            overlay.draw(result.detections)
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
