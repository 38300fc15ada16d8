import Foundation
import TasksVision

/// `vision faces [options] PATH... | --video DIR|FILE|/dev/videoN`
enum FacesCommand: TaskCommand {
    static let defaultModel = "blaze_face_short_range.tflite"

    static let table = OptionTable(
        command: "faces", summary: "Detect faces (BlazeFace, MediaPipe FaceDetector).",
        positional: TaskCommandOptions.positional,
        options: [
            TaskCommandOptions.model("face detector .tflite", default: defaultModel),
            .number("--min-detection-confidence", "X", .unitInterval, default: 0.5, "minimum score of a reported face"),
            .number("--min-suppression-threshold", "X", .unitInterval, default: 0.3,
                    "overlap (IoU) above which two faces are merged"),
        ] + TaskCommandOptions.common)

    static let benchmarks = [BenchmarkEntry(name: "faces", photo: "faces_two_1.png", sequence: "pose_dance_1",
                                            reference: .init("FaceDetector", model: defaultModel))]

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        return TaskMaker { setup in
            let model = try TaskCommandOptions.modelPath(o, default: defaultModel, kind: .faceDetector)
            let options = setup.options(FaceDetectorOptions(), model: model)
            options.minDetectionConfidence = try o.float("--min-detection-confidence")
            options.minSuppressionThreshold = try o.float("--min-suppression-threshold")
            options.resultCallback = setup.callback(report)
            return LibraryFrameTask(try FaceDetector(options: options), roi: roi, report: report)
        }
    }

    static func report(_ result: FaceDetectorResult) -> FrameReport {
        FrameReport(result: result, summary: Overlay.summary(result.detections, noun: "face")) { overlay in
            for d in result.detections {
                overlay.draw([d])
                overlay.text(String(format: "%.2f", d.categories.first?.score ?? 0), Float(d.boundingBox.minX),
                             max(0, Float(d.boundingBox.minY) - Float(overlay.thickness * 14)), (255, 255, 0))
            }
        }
    }
}
