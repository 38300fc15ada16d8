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
        // The output's folder is checked before any image is read.
        let folder = (out as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !folder.isEmpty && !(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory)
                                && isDirectory.boolValue) {
            throw UsageError("--out \(out): no such folder \(folder)")
        }
        let accurate = o.flag("--accurate")
        let options: CommonPoseDetectorOptions = accurate ? AccuratePoseDetectorOptions() : PoseDetectorOptions()
        options.modelAssetPath = try TaskCommandOptions.modelPath(o, default: accurate ? PoseCommand.fullModel
                                                           : PoseCommand.liteModel, kind: .poseLandmarkerBundle)
        options.threads = try o.int("--threads")
        options.detectorMode = .singleImage
        let classes = try classFolders(dir)
        let detector = PoseDetector.poseDetector(options: options)

        var rows: [String] = [], samples: [PoseSample] = [], points: [[PointF3D]] = [], withoutPose: [String] = []
        for (className, images) in classes {
            for path in images {
                let name = (path as NSString).lastPathComponent
                let image = try TaskCommandSupport.load(path, orientation: nil, ignoreExif: false)
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
        let temporary = out + ".partial"
        do {
            try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: temporary))
            _ = try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.moveItem(atPath: temporary, toPath: out)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw UsageError("\(out): cannot write (\((error as NSError).localizedDescription))")
        }
        print("\(out): \(rows.count) sample\(rows.count == 1 ? "" : "s") of \(classes.count) class"
              + "\(classes.count == 1 ? "" : "es")")
        for path in withoutPose { print("no pose: \(path)") }
        for line in try outliers(samples, landmarks: points) { print(line) }
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
                .filter { FrameInput.imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            if let bad = images.first(where: { $0.contains(",") || $0.contains("\n") || $0.contains("\r") }) {
                throw UsageError("\(sub)/\(bad): a sample name cannot hold a comma or a line break")
            }
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
