import Foundation
import TasksVision
import TasksVisionPoseClassification

/// `vision pose samples DIR --out samples.csv`: pose samples for `--classify` from a folder of
/// photos per class, as MediaPipe's pose classification Colab bootstraps them.
enum PoseSamplesCommand: VisionCommand {
    static let note = "vision pose samples DIR --out FILE.csv makes --classify's samples from DIR/<class>/<images>\n"
        + "(an image named 'samples' is given as ./samples)"

    static let table = OptionTable(
        command: "pose samples",
        summary: "Pose samples for --classify: one row per photo of DIR/<class>/ with a pose, then the outliers.",
        positional: ["DIR"],
        options: [
            .required("--out", "FILE.csv", "the sample file to write (the ML Kit quickstart's format)"),
            .flag("--accurate", "use the full pose model instead of the lite one"),
            .text("--model", "M", default: "Models/\(PoseCommand.liteModel) (\(PoseCommand.fullModel) with --accurate)",
                  "the pose landmarker .task bundle to use (a path, or bundle.task:member)"),
            TaskCommandOptions.threads,
        ])

    /// A sample's row: name, class, then x, y, z of the 33 landmarks in pixels (shortest float text).
    static func row(name: String, className: String, landmarks: [PointF3D]) -> String {
        ([name, className] + landmarks.flatMap { ["\($0.x)", "\($0.y)", "\($0.z)"] }).joined(separator: ",")
    }

    static func run(_ o: ParsedOptions) throws {
        guard o.positional.count == 1, let dir = o.positional.first else {
            throw UsageError("give one folder DIR with a subfolder of images per class\n\(table.usage)")
        }
        guard let out = o.string("--out") else { throw UsageError("--out FILE.csv is required") }
        // The output is checked before any image is read (OutputPath: never a folder, device or the dataset).
        let target = try OutputPath.file(out, option: "--out")
        let accurate = o.flag("--accurate")
        let options: CommonPoseDetectorOptions = accurate ? AccuratePoseDetectorOptions() : PoseDetectorOptions()
        options.modelAssetPath = try TaskCommandOptions.modelPath(o, default: accurate ? PoseCommand.fullModel
                                                           : PoseCommand.liteModel, kind: .poseLandmarkerBundle)
        options.threads = try o.int("--threads")
        options.detectorMode = .singleImage
        let classes = try classFolders(dir)
        let detector = PoseDetector.poseDetector(options: options)

        var rows: [String] = [], samples: [PoseSample] = [], points: [[PointF3D]] = [], withoutPose: [String] = []
        var skipped = 0
        for (className, images) in classes {
            for path in images {
                let name = PathText.lastComponent(path)
                // An image that cannot be a sample is skipped and named, as gestures train does.
                if name.contains(",") || name.contains("\n") || name.contains("\r") {
                    skip(path, "a sample name cannot hold a comma or a line break", &skipped)
                    continue
                }
                let image: MPImage
                do {
                    image = try TaskCommandSupport.load(path, orientation: nil, ignoreExif: false)
                } catch {
                    let reason = "\(error)"
                    skip(path, reason.hasPrefix(path + ": ") ? String(reason.dropFirst(path.count + 2)) : reason,
                         &skipped)
                    continue
                }
                guard let pose = try detector.results(in: VisionImage(image: image)).first else {
                    withoutPose.append(path)
                    continue
                }
                let landmarks = PointF3D.landmarks(of: pose)
                // The row as it will be read back, so that the outlier check sees what --classify will.
                let text = row(name: name, className: className, landmarks: landmarks)
                let parsed = PoseSampleFile(data: Data(text.utf8))
                guard let sample = parsed.samples.first, let read = parsed.landmarks.first else {
                    withoutPose.append(path)
                    continue
                }
                rows.append(text)
                samples.append(sample)
                points.append(read)
            }
        }
        guard !rows.isEmpty else { throw UsageError("\(dir): no pose found in any image") }
        try OutputFile.write(Array((rows.joined(separator: "\n") + "\n").utf8), to: target)
        print("\(out): \(rows.count) sample\(rows.count == 1 ? "" : "s") of \(classes.count) class"
              + "\(classes.count == 1 ? "" : "es")" + (skipped == 0 ? "" : " (\(skipped) unreadable image"
              + "\(skipped == 1 ? "" : "s") skipped)"))
        for path in withoutPose { print("no pose: \(path)") }
        for line in try outliers(samples, landmarks: points) { print(line) }
    }

    /// Names an image left out ("vision: skipped PATH: reason") on standard error.
    static func skip(_ path: String, _ reason: String, _ count: inout Int) {
        count += 1
        FileHandle.standardError.write(Data("vision: skipped \(path): \(reason)\n".utf8))
    }

    /// DIR's subfolders (the classes, sorted) with their PNG and JPEG images (sorted).
    static func classFolders(_ dir: String) throws -> [(String, [String])] {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("\(dir): no such folder")
        }
        var classes: [(String, [String])] = []
        for name in try fm.contentsOfDirectory(atPath: dir).sorted() where !name.hasPrefix(".") {
            let sub = dir + "/" + name
            guard fm.fileExists(atPath: sub, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            guard !name.contains(","), !name.contains("\n"), !name.contains("\r") else {
                throw UsageError("\(sub): a class name cannot hold a comma or a line break")
            }
            let images = try fm.contentsOfDirectory(atPath: sub).sorted()
                .filter { FrameInput.imageExtensions.contains(PathText.fileExtension($0).lowercased()) }
            if !images.isEmpty { classes.append((name, images.map { sub + "/" + $0 })) }
        }
        guard !classes.isEmpty else { throw UsageError("\(dir): no subfolder of PNG or JPEG images (one per class)") }
        return classes
    }

    /// Samples whose class is not the only top class of the k-NN over the other samples (the Colab's
    /// `find_pose_sample_outliers`, leaving the sample itself out), one line each.
    static func outliers(_ samples: [PoseSample], landmarks: [[PointF3D]]) throws -> [String] {
        guard samples.count > 1 else { return [] }
        return try PoseClassifier(samples: samples).outliers(landmarks: landmarks).map { o in
            let counts = o.classification.allClasses.map { "\($0) \(Int(o.classification.classConfidence($0)))" }
            return "outlier: \(o.sample.name) (\(o.sample.className)): nearest \(counts.joined(separator: ", "))"
        }
    }
}
