import Foundation
import TasksVision

/// `vision holistic [--model M] [--blendshapes] [--masks DIR] [options] PATH... | --video ...` (MediaPipe
/// HolisticLandmarker): one person's face mesh, body, both hands and mask.
enum HolisticCommand: TaskCommand {
    /// Found as `ModelLocator` describes, holistic_landmarker_assembled.task standing in where it is missing.
    static let defaultModel = "holistic_landmarker.task"
    /// The bundle MediaPipe is compared with in vision-bench (the one set-up installs).
    static let referenceModel = "holistic_landmarker_assembled.task"

    static let table = OptionTable(
        command: "holistic",
        summary: "Face mesh, body pose, both hands and the person's mask in one pass (MediaPipe HolisticLandmarker).",
        positional: TaskCommandOptions.positional,
        options: [
            TaskCommandOptions.model("holistic landmarker .task bundle", default: defaultModel),
            .number("--min-face-detection-confidence", "X", .unitInterval, default: 0.5,
                    "minimum face detection score"),
            .number("--min-face-suppression-threshold", "X", .unitInterval, default: 0.3,
                    "overlap above which face detections merge"),
            .number("--min-face-presence-confidence", "X", .unitInterval, default: 0.5,
                    "minimum face presence score of the face mesh model"),
            .number("--min-pose-detection-confidence", "X", .unitInterval, default: 0.5,
                    "minimum pose detection score"),
            .number("--min-pose-suppression-threshold", "X", .unitInterval, default: 0.3,
                    "overlap above which pose detections merge"),
            .number("--min-pose-presence-confidence", "X", .unitInterval, default: 0.5,
                    "minimum pose presence score of the pose landmark model"),
            .number("--min-hand-landmarks-confidence", "X", .unitInterval, default: 0.5,
                    "minimum hand presence score of the hand landmark model"),
            .flag("--blendshapes", "give the face's 52 blendshape scores"),
            .flag("--matrices", "give the face's 4x4 transformation matrix and head pose (the geometry of "
                  + "face_landmarker.task)"),
            .text("--masks", "DIR", default: "none",
                  "write each input's segmentation mask (the person, 0-255) as DIR/<name>.png"),
        ] + TaskCommandOptions.common)

    /// MediaPipe's graph computes the blendshapes and the mask whatever its options, so the full runs compare
    /// like with like; the plain runs show what leaving them out saves here.
    static let benchmarks = [
        BenchmarkEntry(name: "holistic", photo: "pose_standing_1.png", sequence: "pose_dance_1",
                       reference: .init("HolisticLandmarker", model: referenceModel)),
        BenchmarkEntry(name: "holistic-video", mode: .video, photo: "pose_standing_1.png",
                       reference: .init("HolisticLandmarker", model: referenceModel, video: true)),
        BenchmarkEntry(name: "holistic-full", arguments: fullArguments, photo: "pose_standing_1.png",
                       reference: .init("HolisticLandmarker", model: referenceModel, options: fullReference)),
        BenchmarkEntry(name: "holistic-full-video", arguments: fullArguments, mode: .video,
                       photo: "pose_standing_1.png",
                       reference: .init("HolisticLandmarker", model: referenceModel, video: true,
                                        options: fullReference)),
    ]
    /// Blendshapes and the mask (written, when `vision` itself runs the entry as tools/bench_memory.py does, into a
    /// temporary folder).
    static let fullArguments = ["--blendshapes", "--masks", NSTemporaryDirectory() + "tasksvision-holistic-masks"]
    static let fullReference = ["output_face_blendshapes": 1, "output_segmentation_mask": 1]

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        let masks = o.isSet("--masks")
        let reporter: (HolisticLandmarkerResult) -> FrameReport = { report($0, masks: masks) }
        return TaskMaker { setup in
            let model = try TaskCommandOptions.modelPath(o, default: defaultModel, kind: .holisticLandmarkerBundle)
            let options = setup.options(HolisticLandmarkerOptions(), model: model)
            options.minFaceDetectionConfidence = try o.float("--min-face-detection-confidence")
            options.minFaceSuppressionThreshold = try o.float("--min-face-suppression-threshold")
            options.minFacePresenceConfidence = try o.float("--min-face-presence-confidence")
            options.minPoseDetectionConfidence = try o.float("--min-pose-detection-confidence")
            options.minPoseSuppressionThreshold = try o.float("--min-pose-suppression-threshold")
            options.minPosePresenceConfidence = try o.float("--min-pose-presence-confidence")
            options.minHandLandmarksConfidence = try o.float("--min-hand-landmarks-confidence")
            options.outputFaceBlendshapes = o.flag("--blendshapes")
            options.outputFacialTransformationMatrixes = o.flag("--matrices")
            options.outputPoseSegmentationMasks = masks
            options.resultCallback = setup.callback(reporter)
            return LibraryFrameTask(try HolisticLandmarker(options: options), roi: roi, report: reporter)
        }
    }

    /// "pose, face, left hand, right hand" with the strongest blendshapes and the head pose when given.
    static func summary(_ r: HolisticLandmarkerResult) -> String {
        let found = [("pose", r.poseLandmarks), ("face", r.faceLandmarks), ("left hand", r.leftHandLandmarks),
                     ("right hand", r.rightHandLandmarks)].filter { !$0.1.isEmpty }.map(\.0)
        guard !found.isEmpty else { return "no person" }
        var parts: [String] = []
        if let shapes = r.faceBlendshapes {
            let top = shapes.categories.filter { $0.categoryName != "_neutral" }.sorted { $0.score > $1.score }
            parts.append(top.prefix(3).map { String(format: "%@ %.2f", $0.categoryName ?? "?", $0.score) }
                .joined(separator: ", "))
        }
        if let pose = r.headPose {
            // Rounded first, + 0 turning -0 into 0.
            parts.append(String(format: "yaw %.0f pitch %.0f roll %.0f", pose.yaw.rounded() + 0,
                                pose.pitch.rounded() + 0, pose.roll.rounded() + 0))
        }
        return found.joined(separator: ", ") + (parts.isEmpty ? "" : " [" + parts.joined(separator: "; ") + "]")
    }

    /// The frame's report; with `masks`, its mask for `--masks` (all 0 without a person).
    static func report(_ r: HolisticLandmarkerResult, masks: Bool) -> FrameReport {
        var report = FrameReport(result: r, summary: summary(r)) { overlay in
            let W = Float(overlay.width), H = Float(overlay.height)
            func draw(_ lms: [NormalizedLandmark], _ connections: [Connection], _ color: (UInt8, UInt8, UInt8)) {
                for c in connections where lms.indices.contains(c.start) && lms.indices.contains(c.end) {
                    overlay.line(lms[c.start].x * W, lms[c.start].y * H, lms[c.end].x * W, lms[c.end].y * H, color)
                }
            }
            draw(r.faceLandmarks, FaceLandmarker.tesselationConnections(), (110, 110, 110))
            draw(r.faceLandmarks, FaceLandmarker.faceOvalConnections() + FaceLandmarker.lipsConnections(), (0, 255, 0))
            draw(r.faceLandmarks, FaceLandmarker.leftEyeConnections() + FaceLandmarker.rightEyeConnections()
                 + FaceLandmarker.leftIrisConnections() + FaceLandmarker.rightIrisConnections(), (0, 200, 255))
            draw(r.poseLandmarks, HolisticLandmarker.poseConnections, (255, 255, 255))
            for lm in r.poseLandmarks where (lm.visibility ?? 1) > 0.5 { overlay.dot(lm.x * W, lm.y * H, (255, 0, 0)) }
            for (hand, color) in [(r.leftHandLandmarks, (255, 160, 0) as (UInt8, UInt8, UInt8)),
                                  (r.rightHandLandmarks, (0, 160, 255))] {
                draw(hand, HolisticLandmarker.handConnections, color)
                for lm in hand { overlay.dot(lm.x * W, lm.y * H, color) }
            }
        }
        if masks { report.masks = [FrameMask.largest(of: r.poseSegmentationMask.map { [$0] } ?? [])] }
        return report
    }
}
