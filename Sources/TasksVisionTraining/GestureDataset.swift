import Foundation
import TasksVision
import TasksVisionImageIO

/// Labeled hands to train a gesture classifier on, with Model Maker's label order: the
/// background label (`none`, in any case) first, the others sorted.
public struct GestureDataset: Sendable, Equatable {
    public struct Sample: Sendable, Equatable {
        /// Index into `labels`.
        public var label: Int
        public var hand: GestureHand
        /// Where the hand came from (an image path relative to the dataset folder), for reports.
        public var source: String

        public init(label: Int, hand: GestureHand, source: String = "") {
            self.label = label; self.hand = hand; self.source = source
        }
    }

    /// Label names; index 0 is the background label.
    public let labels: [String]
    public let samples: [Sample]

    /// A dataset of samples whose `label` indexes `labels`; `labels` must be in Model Maker's
    /// order (see `orderedLabels`).
    public init(labels: [String], samples: [Sample]) throws {
        guard try Self.orderedLabels(labels) == labels else {
            throw TrainingError.invalidDataset("labels \(labels) are not in Model Maker's order (the background "
                                               + "label first, then the others sorted): "
                                               + "\(try Self.orderedLabels(labels))")
        }
        for (i, s) in samples.enumerated() where !labels.indices.contains(s.label) {
            throw TrainingError.invalidSample("sample \(i) (\(s.source)) has label \(s.label) but there are "
                                              + "\(labels.count) labels")
        }
        self.labels = labels
        self.samples = samples
    }

    /// A dataset from hands named by their labels, in the given order.
    public init(labeledHands: [(label: String, hand: GestureHand)]) throws {
        let labels = try Self.orderedLabels(Array(Set(labeledHands.map(\.label))))
        let index = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        try self.init(labels: labels, samples: labeledHands.enumerated().map { i, s in
            Sample(label: index[s.label] ?? 0, hand: s.hand, source: "sample \(i)")
        })
    }

    /// Model Maker's label order (dataset.py): sorted by code point, then the one named `none`
    /// (compared case-insensitively) moved to the front. Throws when there is no such label,
    /// more than one, or a name is repeated.
    public static func orderedLabels(_ names: [String]) throws -> [String] {
        let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if let repeated = zip(sorted, sorted.dropFirst()).first(where: { $0 == $1 })?.0 {
            throw TrainingError.invalidDataset("label '\(repeated)' is given twice")
        }
        let background = sorted.filter { $0.lowercased() == "none" }
        guard background.count == 1 else {
            throw TrainingError.invalidDataset(background.isEmpty
                ? "no background label: Model Maker needs a label named 'none' (any case) for hands showing none "
                  + "of the gestures; labels are \(sorted)"
                : "labels \(background) are all the background label 'none' (compared case-insensitively)")
        }
        return background + sorted.filter { $0.lowercased() != "none" }
    }

    /// Samples per label, in label order.
    public var counts: [Int] {
        var c = [Int](repeating: 0, count: labels.count)
        for s in samples { c[s.label] += 1 }
        return c
    }
}

/// What a pass over a folder of images found.
public struct GestureFolderReport: Sendable, Equatable {
    public struct Skipped: Sendable, Equatable {
        public var path: String
        public var reason: String
    }
    /// Image files looked at.
    public var images = 0
    /// Files that could not be read as images.
    public var unreadable: [Skipped] = []
    /// Images in which the landmarker found no hand.
    public var withoutHand: [String] = []
    /// Gesture labels none of whose images has a hand: left out of the dataset.
    public var droppedLabels: [String] = []
    /// Wall-clock seconds of the pass (decoding, hand landmarks).
    public var seconds = 0.0
}

extension GestureDataset {
    /// The landmarker settings of Model Maker's dataset pass (dataset.py `_get_hand_data`).
    public static let minHandDetectionConfidence: Float = 0.7
    public static let minHandPresenceConfidence: Float = 0.5

    /// Hands from a folder with one sub-folder of images per label (Model Maker's layout), found
    /// by `HandLandmarker` in image mode with one hand, detection confidence 0.7 and presence 0.5.
    /// Files are taken in name order; hidden files and sub-sub-folders are ignored. An unreadable
    /// image is reported and skipped; an image without a hand is reported and dropped; a gesture
    /// label left without hands is reported and dropped (the background label stays). `progress`
    /// is called after each image with (done, total, path).
    public static func fromFolder(_ folder: String, handLandmarker modelPath: String,
                                  minHandDetectionConfidence: Float = GestureDataset.minHandDetectionConfidence,
                                  threads: Int = 1,
                                  progress: ((Int, Int, String) -> Void)? = nil)
        throws -> (dataset: GestureDataset, report: GestureFolderReport) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TrainingError.invalidDataset("\(folder) is not a folder (expected one sub-folder of images per "
                                               + "label, one of them named 'none')")
        }
        let entries = try fm.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        let labelFolders = entries.filter {
            var d: ObjCBool = false
            return fm.fileExists(atPath: folder + "/" + $0, isDirectory: &d) && d.boolValue
        }
        if labelFolders.isEmpty {
            throw TrainingError.invalidDataset("\(folder) has no label sub-folders")
        }
        let labels = try orderedLabels(labelFolders)
        var files: [(label: Int, path: String, source: String)] = []
        for (i, label) in labels.enumerated() {
            let sub = folder + "/" + label
            let names = try fm.contentsOfDirectory(atPath: sub).filter { !$0.hasPrefix(".") }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for name in names {
                var d: ObjCBool = false
                if fm.fileExists(atPath: sub + "/" + name, isDirectory: &d), !d.boolValue {
                    files.append((i, sub + "/" + name, label + "/" + name))
                }
            }
        }
        if files.isEmpty { throw TrainingError.invalidDataset("\(folder): the label folders hold no files") }

        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.threads = threads
        options.runningMode = .image
        options.numHands = 1
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        let landmarker = try HandLandmarker(options: options)

        var report = GestureFolderReport()
        let start = Date()
        var samples: [Sample] = []
        for (k, file) in files.enumerated() {
            report.images += 1
            defer { progress?(k + 1, files.count, file.path) }
            let image: MPImage
            do {
                image = try MPImage(contentsOfFile: file.path)
            } catch {
                report.unreadable.append(.init(path: file.path, reason: "\(error)"))
                continue
            }
            let result = try landmarker.detect(image: image)
            guard let hand = GestureHand(result, imageWidth: image.width, imageHeight: image.height) else {
                report.withoutHand.append(file.path)
                continue
            }
            samples.append(Sample(label: file.label, hand: hand, source: file.source))
        }
        report.seconds = Date().timeIntervalSince(start)
        if samples.isEmpty {
            throw TrainingError.invalidDataset("\(folder): no hand found in any of its \(files.count) files "
                                               + "(detection confidence \(minHandDetectionConfidence))")
        }
        // Drop gesture labels without hands, renumbering the rest.
        var present = Set(samples.map(\.label))
        present.insert(0)
        report.droppedLabels = labels.indices.filter { !present.contains($0) }.map { labels[$0] }
        let kept = labels.indices.filter { present.contains($0) }
        let renumber = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1, $0) })
        let dataset = try GestureDataset(labels: kept.map { labels[$0] }, samples: samples.map {
            Sample(label: renumber[$0.label] ?? 0, hand: $0.hand, source: $0.source)
        })
        return (dataset, report)
    }
}
