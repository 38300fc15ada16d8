import Foundation
import TasksVision

/// `vision hands` (HandLandmarker), and what `vision gestures` (GestureRecognizer) shares with it.
enum HandsCommand: TaskCommand {
    static let handModel = "hand_landmarker.task", gestureModel = "gesture_recognizer.task"

    static let handOptions: [OptionSpec] = [
        .number("--num-hands", "N", .atLeast(1), default: 1, "most hands to find"),
        .number("--min-hand-detection-confidence", "X", .unitInterval, default: 0.5, "minimum palm detection score"),
        .number("--min-hand-presence-confidence", "X", .unitInterval, default: 0.5,
                "minimum hand presence score of the landmark model"),
        .number("--min-tracking-confidence", "X", .unitInterval, default: 0.5,
                "minimum overlap with the last frame's hand to keep tracking it (video, live stream)"),
        .flag("--smooth", "smooth landmarks over time per tracked hand (video, live stream; MediaPipe does not)")
            .forVideoOnly(),
    ]

    static let gestureOptions: [OptionSpec] = [
        .text("--canned-allowlist", "A,B", default: "all", "report only these canned gestures"),
        .text("--canned-denylist", "A,B", default: "none", "never report these canned gestures (the allowlist wins)"),
        .number("--score-threshold", "X", .unitInterval, default: 0, "minimum score of a reported gesture"),
    ]

    static let table = OptionTable(
        command: "hands", summary: "Hand landmarks and handedness (MediaPipe HandLandmarker).",
        positional: TaskCommandOptions.positional,
        options: [TaskCommandOptions.model("hand landmarker .task bundle", default: handModel)] + handOptions
            + TaskCommandOptions.common,
        elsewhere: Dictionary(uniqueKeysWithValues: gestureOptions.map { ($0.name, "vision gestures") }))

    static let benchmarks = [
        BenchmarkEntry(name: "hands", arguments: ["--num-hands", "2"], photo: "hands_two_1.png",
                       sequence: "hand_asl_1",
                       reference: .init("HandLandmarker", model: handModel, options: ["num_hands": 2])),
        BenchmarkEntry(name: "hands-video", arguments: ["--num-hands", "2"], mode: .video, photo: "hands_two_1.png",
                       reference: .init("HandLandmarker", model: handModel, video: true, options: ["num_hands": 2])),
    ]

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        return TaskMaker { setup in
            let model = try TaskCommandOptions.modelPath(o, default: handModel, kind: .handLandmarkerBundle)
            let options = setup.options(HandLandmarkerOptions(), model: model)
            try setHandOptions(options, o)
            options.resultCallback = setup.callback(report)
            return LibraryFrameTask(try HandLandmarker(options: options), roi: roi, report: report)
        }
    }

    /// The options both hand commands take.
    static func setHandOptions(_ options: HandTrackingOptions, _ o: ParsedOptions) throws {
        options.numHands = try o.int("--num-hands")
        options.minHandDetectionConfidence = try o.float("--min-hand-detection-confidence")
        options.minHandPresenceConfidence = try o.float("--min-hand-presence-confidence")
        options.minTrackingConfidence = try o.float("--min-tracking-confidence")
        options.smoothLandmarks = o.flag("--smooth")
    }

    static func report(_ r: HandLandmarkerResult) -> FrameReport {
        report(r, landmarks: r.landmarks, handedness: r.handedness, gestures: nil, ids: r.trackingIds)
    }

    /// Gestures go with their hands only when every hand has one: as in MediaPipe, a hand whose
    /// gesture the filters removed has no entry, so otherwise they are listed apart.
    static func report(_ r: GestureRecognizerResult) -> FrameReport {
        let perHand = r.gestures.count == r.landmarks.count
        return report(r, landmarks: r.landmarks, handedness: r.handedness, gestures: perHand ? r.gestures : nil,
                      ids: r.trackingIds, apart: perHand ? [] : r.gestures.compactMap(\.first))
    }

    /// The best category of hand `i`, if there is one.
    static func top(_ lists: [[ResultCategory]]?, _ i: Int) -> ResultCategory? {
        guard let lists, lists.indices.contains(i) else { return nil }
        return lists[i].first
    }

    static func report(_ result: any Encodable, landmarks: [[NormalizedLandmark]], handedness: [[ResultCategory]],
                       gestures: [[ResultCategory]]?, ids: [Int]?, apart: [ResultCategory] = []) -> FrameReport {
        let hands = landmarks.indices.map { i -> String in
            let h = top(handedness, i).map { String(format: "%@ %.2f", $0.categoryName ?? "?", $0.score) } ?? "?"
            let g = top(gestures, i).map { String(format: ", %@ %.2f", $0.categoryName ?? "?", $0.score) } ?? ""
            let id = ids.flatMap { $0.indices.contains(i) ? "#\($0[i]) " : nil } ?? ""
            return "[\(id)\(h)\(g)]"
        }
        let summary = "\(landmarks.count) hand\(landmarks.count == 1 ? "" : "s")"
            + (hands.isEmpty ? "" : ": " + hands.joined(separator: " "))
            + (apart.isEmpty ? "" : "; gestures of some of them: "
                + apart.map { String(format: "%@ %.2f", $0.categoryName ?? "?", $0.score) }.joined(separator: ", "))
        return FrameReport(result: result, summary: summary) { overlay in
            let W = Float(overlay.width), H = Float(overlay.height)
            for (i, lms) in landmarks.enumerated() {
                for c in HandConnections.all where lms.indices.contains(c.start) && lms.indices.contains(c.end) {
                    let a = lms[c.start], b = lms[c.end]
                    overlay.line(a.x * W, a.y * H, b.x * W, b.y * H, (0, 255, 0))
                }
                for lm in lms { overlay.dot(lm.x * W, lm.y * H, (255, 0, 0)) }
                var label = (ids.flatMap { $0.indices.contains(i) ? "#\($0[i]) " : nil } ?? "")
                    + (top(handedness, i)?.categoryName ?? "")
                if let g = top(gestures, i) { label += " " + (g.categoryName ?? "") + String(format: " %.2f", g.score) }
                let minY = lms.map(\.y).min() ?? 0, minX = lms.map(\.x).min() ?? 0
                overlay.text(label, minX * W, max(0, minY * H - Float(overlay.thickness * 14)), (255, 255, 0))
            }
        }
    }
}
