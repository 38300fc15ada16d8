import Foundation
import TasksVision

/// `vision hands` and `vision gestures`.
enum HandsCommand {
    static func run(_ args: [String], gestures: Bool) throws {
        let name = gestures ? "gestures" : "hands"
        let valued: Set<String> = ["--num-hands", "--min-hand-detection-confidence", "--min-hand-presence-confidence", "--min-tracking-confidence",
                                   "--canned-allowlist", "--canned-denylist", "--score-threshold"]
        let parser = try OptionParser(args, valued: TaskCommandSupport.commonValued.union(valued), flags: TaskCommandSupport.commonFlags)
        if parser.positional.isEmpty && parser.value("--video") == nil {
            throw UsageError("usage: vision \(name) [--model M] [--num-hands N] [--min-hand-detection-confidence X] [--min-hand-presence-confidence X] [--min-tracking-confidence X]"
                             + (gestures ? " [--canned-allowlist A,B] [--canned-denylist A,B] [--score-threshold X]" : "")
                             + " [--orientation O] [--ignore-exif] [--json] [--overlay DIR] (PATH... | --video DIR [--fps N])")
        }
        if !gestures, let bad = ["--canned-allowlist", "--canned-denylist", "--score-threshold"].first(where: { parser.value($0) != nil }) {
            throw UsageError("\(bad) is an option of 'vision gestures'")
        }
        let model = try parser.value("--model") ?? TaskCommandSupport.defaultModel(gestures ? "gesture_recognizer.task" : "hand_landmarker.task")
        let numHands = try parser.int("--num-hands", default: 1)
        let detection = try TaskCommandSupport.float(parser, "--min-hand-detection-confidence", default: 0.5)
        let presence = try TaskCommandSupport.float(parser, "--min-hand-presence-confidence", default: 0.5)
        let tracking = try TaskCommandSupport.float(parser, "--min-tracking-confidence", default: 0.5)
        let mode: RunningMode = parser.value("--video") != nil ? .video : .image
        let threads = try parser.int("--threads", default: 1)
        let json = parser.flags.contains("--json")

        func list(_ v: String?) -> [String] { v.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? [] }

        typealias Run = (MPImage, Int?) throws -> (landmarks: [[NormalizedLandmark]], handedness: [[ResultCategory]], gestures: [[ResultCategory]]?, encode: (String, MPImage, Int?) throws -> Void)
        let run: Run
        if gestures {
            var o = GestureRecognizerOptions()
            o.baseOptions.modelAssetPath = model
            o.baseOptions.threads = threads
            o.runningMode = mode
            o.numHands = numHands
            o.minHandDetectionConfidence = detection
            o.minHandPresenceConfidence = presence
            o.minTrackingConfidence = tracking
            let canned = ClassifierOptions(), custom = ClassifierOptions()
            canned.categoryAllowlist = list(parser.value("--canned-allowlist"))
            canned.categoryDenylist = list(parser.value("--canned-denylist"))
            canned.scoreThreshold = try TaskCommandSupport.float(parser, "--score-threshold", default: 0)
            custom.scoreThreshold = canned.scoreThreshold
            o.cannedGesturesClassifierOptions = canned
            o.customGesturesClassifierOptions = custom
            let recognizer = try GestureRecognizer(options: o)
            run = { image, t in
                let r = try t.map { try recognizer.recognize(videoFrame: image, timestampInMilliseconds: $0) } ?? recognizer.recognize(image: image)
                return (r.landmarks, r.handedness, r.gestures, { f, i, ts in try TaskCommandSupport.printJSON(file: f, image: i, timestamp: ts, result: r) })
            }
        } else {
            var o = HandLandmarkerOptions()
            o.baseOptions.modelAssetPath = model
            o.baseOptions.threads = threads
            o.runningMode = mode
            o.numHands = numHands
            o.minHandDetectionConfidence = detection
            o.minHandPresenceConfidence = presence
            o.minTrackingConfidence = tracking
            let landmarker = try HandLandmarker(options: o)
            run = { image, t in
                let r = try t.map { try landmarker.detect(videoFrame: image, timestampInMilliseconds: $0) } ?? landmarker.detect(image: image)
                return (r.landmarks, r.handedness, nil, { f, i, ts in try TaskCommandSupport.printJSON(file: f, image: i, timestamp: ts, result: r) })
            }
        }
        try TaskCommandSupport.forEachInput(parser) { file, image, timestamp in
            let r = try run(image, timestamp)
            if json {
                try r.encode(file, image, timestamp)
            } else {
                let hands = r.landmarks.indices.map { i -> String in
                    let h = r.handedness[i].first.map { String(format: "%@ %.2f", $0.categoryName ?? "?", $0.score) } ?? "?"
                    let g = r.gestures?[i].first.map { String(format: ", %@ %.2f", $0.categoryName ?? "?", $0.score) } ?? ""
                    return "[\(h)\(g)]"
                }
                print("\(file): \(r.landmarks.count) hand\(r.landmarks.count == 1 ? "" : "s")" + (hands.isEmpty ? "" : ": " + hands.joined(separator: " ")))
            }
            if let dir = parser.value("--overlay") {
                var overlay = Overlay(image)
                let W = Float(image.width), H = Float(image.height)
                for (i, lms) in r.landmarks.enumerated() {
                    for c in HandConnections.all {
                        overlay.line(lms[c.start].x * W, lms[c.start].y * H, lms[c.end].x * W, lms[c.end].y * H, (0, 255, 0))
                    }
                    for lm in lms { overlay.dot(lm.x * W, lm.y * H, (255, 0, 0)) }
                    var label = r.handedness[i].first?.categoryName ?? ""
                    if let g = r.gestures?[i].first { label += " " + (g.categoryName ?? "") + String(format: " %.2f", g.score) }
                    let minY = lms.map(\.y).min() ?? 0, minX = lms.map(\.x).min() ?? 0
                    overlay.text(label, minX * W, max(0, minY * H - Float(overlay.thickness * 14)), (255, 255, 0))
                }
                try overlay.write(try Overlay.path(in: dir, for: file))
            }
        }
    }
}
