import Dispatch
import Foundation
import TasksVision
import TasksVisionImageIO

/// Per-frame latency of whole vision tasks (preprocessing, inference, postprocessing).
enum TaskBenchmark {
    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// The photo resized (bilinear) to `width` x `height` RGB.
    static func frame(_ path: String, width: Int, height: Int) throws -> MPImage {
        let d = try ImageFile.read(path)
        let src = try MPImage(pixels: d.pixels, width: d.width, height: d.height,
                              pixelFormat: d.channels == 3 ? .rgb8 : (d.channels == 4 ? .rgba8 : .gray8))
        let rgb = ImageToTensor.warp(src,
                                     roi: RotatedRect(centerX: Float(d.width) / 2, centerY: Float(d.height) / 2,
                                                      width: Float(d.width), height: Float(d.height), rotation: 0),
                                     width: width, height: height, border: .replicate)
        return try MPImage(pixels: rgb, width: width, height: height, pixelFormat: .rgb8)
    }

    static func time(runs: Int, warmup: Int, _ body: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<warmup { try body() }
        var times: [Double] = []
        for _ in 0..<runs {
            let t0 = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        return times.sorted()
    }

    static func report(_ name: String, _ size: (Int, Int), _ times: [Double], json: Bool, threads: Int) {
        let median = times.count % 2 == 1
            ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
        if json {
            let object: [String: Any] = ["task": name, "width": size.0, "height": size.1, "threads": threads,
                                         "runs": times.count,
                                         "minMs": times[0], "medianMs": median, "maxMs": times[times.count - 1]]
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(String(format: "%@ %dx%d threads %d: min %.3f ms  median %.3f ms  max %.3f ms", name, size.0, size.1,
                         threads, times[0], median, times[times.count - 1]))
        }
    }

    static func run(task: String, options: Options) {
        let sizes = options.sizes.isEmpty ? [(640, 480), (1280, 720)] : options.sizes
        let threads = options.threads.first ?? 1
        do {
            switch task {
            case "faces":
                let photo = options.image ?? (repositoryRoot + "/../shared/testdata/images/faces_two_1.png")
                let o = FaceDetectorOptions()
                o.baseOptions.modelAssetPath = options.models.first.flatMap {
                    $0.hasSuffix(".tflite") && !defaultModels.contains(($0 as NSString).lastPathComponent) ? $0 : nil
                }
                    ?? repositoryRoot + "/Models/blaze_face_short_range.tflite"
                o.baseOptions.threads = threads
                let detector = try FaceDetector(options: o)
                for size in sizes {
                    let image = try frame(photo, width: size.0, height: size.1)
                    report("faces", size,
                           try time(runs: options.runs, warmup: options.warmup) {
                               _ = try detector.detect(image: image)
                           }, json: options.json, threads: threads)
                }
            case "palms":
                // Palm detection alone, then the whole hand landmarker on the same frame, for comparison.
                let photo = options.image ?? (repositoryRoot + "/../shared/testdata/images/hands_two_1.png")
                let o = HandDetectorOptions()
                o.baseOptions.modelAssetPath = repositoryRoot + "/Models/hand_landmarker.task"
                o.baseOptions.threads = threads
                o.numHands = 2
                let detector = try HandDetector(options: o)
                let lo = HandLandmarkerOptions()
                lo.baseOptions.modelAssetPath = o.baseOptions.modelAssetPath
                lo.baseOptions.threads = threads
                lo.numHands = 2
                let landmarker = try HandLandmarker(options: lo)
                for size in sizes {
                    let image = try frame(photo, width: size.0, height: size.1)
                    report("palms", size, try time(runs: options.runs, warmup: options.warmup) {
                        _ = try detector.detect(image: image)
                    },
                           json: options.json, threads: threads)
                    report("hands", size, try time(runs: options.runs, warmup: options.warmup) {
                        _ = try landmarker.detect(image: image)
                    },
                           json: options.json, threads: threads)
                }
            case "hands", "hands-video", "gestures", "gestures-video":
                let photo = options.image ?? (repositoryRoot + "/../shared/testdata/images/hands_two_1.png")
                let video = task.hasSuffix("-video")
                let gestures = task.hasPrefix("gestures")
                for size in sizes {
                    let image = try frame(photo, width: size.0, height: size.1)
                    var t = 0
                    let body: () throws -> Void
                    if gestures {
                        let o = GestureRecognizerOptions()
                        o.baseOptions.modelAssetPath = repositoryRoot + "/Models/gesture_recognizer.task"
                        o.baseOptions.threads = threads
                        o.numHands = 2
                        o.runningMode = video ? .video : .image
                        let r = try GestureRecognizer(options: o)
                        body = {
                            t += 33;
                            _ = try video
                                ? r.recognize(videoFrame: image, timestampInMilliseconds: t) : r.recognize(image: image)
                        }
                    } else {
                        let o = HandLandmarkerOptions()
                        o.baseOptions.modelAssetPath = repositoryRoot + "/Models/hand_landmarker.task"
                        o.baseOptions.threads = threads
                        o.numHands = 2
                        o.runningMode = video ? .video : .image
                        let r = try HandLandmarker(options: o)
                        body = {
                            t += 33;
                            _ = try video
                                ? r.detect(videoFrame: image, timestampInMilliseconds: t) : r.detect(image: image)
                        }
                    }
                    report(task, size, try time(runs: options.runs, warmup: options.warmup, body), json: options.json,
                           threads: threads)
                }
            case "pose", "pose-stream", "pose-accurate", "pose-accurate-stream":
                let photo = options.image ?? (repositoryRoot + "/../shared/testdata/images/pose_standing_1.png")
                let o: CommonPoseDetectorOptions = task.contains("accurate")
                    ? AccuratePoseDetectorOptions() : PoseDetectorOptions()
                o.modelAssetPath = repositoryRoot + "/Models/"
                    + (task.contains("accurate") ? "pose_landmarker_full.task" : "pose_landmarker_lite.task")
                o.threads = threads
                o.detectorMode = task.hasSuffix("stream") ? .stream : .singleImage
                for size in sizes {
                    let detector = PoseDetector.poseDetector(options: o)
                    let image = VisionImage(image: try frame(photo, width: size.0, height: size.1))
                    var t = 0
                    report(task, size,
                           try time(runs: options.runs, warmup: options.warmup) {
                               t += 33;
                               _ = try detector.results(in: image,
                                                        timestampInMilliseconds: o.detectorMode == .stream ? t : nil)
                           },
                           json: options.json, threads: threads)
                }
            case "face-landmarks", "face-landmarks-video", "face-landmarks-full", "face-landmarks-full-video":
                // -full: with blendshapes and transformation matrices.
                let photo = options.image ?? (repositoryRoot + "/../shared/testdata/images/face_frontal_1.png")
                let video = task.hasSuffix("-video"), full = task.contains("-full")
                for size in sizes {
                    let image = try frame(photo, width: size.0, height: size.1)
                    let o = FaceLandmarkerOptions()
                    o.baseOptions.modelAssetPath = repositoryRoot + "/Models/face_landmarker.task"
                    o.baseOptions.threads = threads
                    o.runningMode = video ? .video : .image
                    o.outputFaceBlendshapes = full
                    o.outputFacialTransformationMatrixes = full
                    let landmarker = try FaceLandmarker(options: o)
                    var t = 0
                    report(task, size, try time(runs: options.runs, warmup: options.warmup) {
                        t += 33
                        _ = try video ? landmarker.detect(videoFrame: image, timestampInMilliseconds: t)
                            : landmarker.detect(image: image)
                    }, json: options.json, threads: threads)
                }
            case "pose-classify": try PoseClassifyBenchmark.run(options: options)
            default:
                fail("unknown task '\(task)' (faces, palms, hands, hands-video, gestures, gestures-video, "
                    + "pose, pose-stream, pose-accurate, pose-accurate-stream, pose-classify, face-landmarks, "
                    + "face-landmarks-video, face-landmarks-full, face-landmarks-full-video)")
            }
        } catch {
            fail("\(error)")
        }
    }
}
