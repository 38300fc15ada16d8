import Foundation
import TasksVision

/// `vision faces [options] PATH...`
enum FacesCommand {
    static let usage = "usage: vision faces [--model M] [--min-detection-confidence X] [--min-suppression-threshold X] [--orientation O] [--ignore-exif] [--json] [--overlay DIR] (PATH... | --video DIR [--fps N])"

    static func run(_ args: [String]) throws {
        let parser = try OptionParser(args, valued: TaskCommandSupport.commonValued.union(["--min-detection-confidence", "--min-suppression-threshold"]),
                                      flags: TaskCommandSupport.commonFlags)
        if parser.positional.isEmpty && parser.value("--video") == nil { throw UsageError(usage) }
        var options = FaceDetectorOptions()
        options.baseOptions.modelAssetPath = try parser.value("--model") ?? TaskCommandSupport.defaultModel("blaze_face_short_range.tflite")
        options.baseOptions.threads = try parser.int("--threads", default: 1)
        options.minDetectionConfidence = try TaskCommandSupport.float(parser, "--min-detection-confidence", default: 0.5)
        options.minSuppressionThreshold = try TaskCommandSupport.float(parser, "--min-suppression-threshold", default: 0.3)
        options.runningMode = parser.value("--video") != nil ? .video : .image
        let detector = try FaceDetector(options: options)
        let json = parser.flags.contains("--json")
        try TaskCommandSupport.forEachInput(parser) { file, image, timestamp in
            let result = try timestamp.map { try detector.detect(videoFrame: image, timestampInMilliseconds: $0) } ?? detector.detect(image: image)
            if json {
                try TaskCommandSupport.printJSON(file: file, image: image, timestamp: timestamp, result: result)
            } else {
                let faces = result.detections.map { d in
                    String(format: "[%.0f,%.0f %.0fx%.0f] %.2f", d.boundingBox.minX, d.boundingBox.minY, d.boundingBox.width,
                           d.boundingBox.height, d.categories.first?.score ?? 0)
                }
                print("\(file): \(result.detections.count) face\(result.detections.count == 1 ? "" : "s")" + (faces.isEmpty ? "" : ": " + faces.joined(separator: " ")))
            }
            if let dir = parser.value("--overlay") {
                var overlay = Overlay(image)
                for d in result.detections {
                    overlay.rect(d.boundingBox, (0, 255, 0))
                    for k in d.keypoints ?? [] { overlay.dot(Float(k.location.x) * Float(image.width), Float(k.location.y) * Float(image.height), (255, 0, 0)) }
                    overlay.text(String(format: "%.2f", d.categories.first?.score ?? 0), Float(d.boundingBox.minX), max(0, Float(d.boundingBox.minY) - Float(overlay.thickness * 14)), (255, 255, 0))
                }
                try overlay.write(try Overlay.path(in: dir, for: file))
            }
        }
    }
}
