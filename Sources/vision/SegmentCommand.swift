import Foundation
import TasksVision
import TasksVisionFormat
import TasksVisionImageIO

/// `vision segment [options] PATH... | --video DIR|FILE|/dev/videoN`: the person's mask (MediaPipe ImageSegmenter
/// on a selfie model) or a mask per class (a multi-class model such as deeplab_v3.tflite), written with --masks,
/// and the background blurred or replaced with --background (what stays in front: --keep).
enum SegmentCommand: TaskCommand {
    static let defaultModel = "selfie_segmenter.tflite"
    static let defaultBlurRadius = 12

    static let table = OptionTable(
        command: "segment", summary: "Separate people, or any classes, from the background (MediaPipe "
            + "ImageSegmenter).",
        positional: TaskCommandOptions.positional,
        options: [
            TaskCommandOptions.model("segmentation .tflite: a selfie model (also selfie_segmentation.tflite, "
                                     + "selfie_segmentation_landscape.tflite) or a multi-class one (deeplab_v3.tflite)",
                                     default: defaultModel),
            .text("--masks", "DIR", default: "none",
                  "write each input's person confidence (round(255 p), 8-bit gray) as DIR/<name>.png; of a "
                  + "multi-class model each class's as DIR/<name>_<label>.png (spaces in labels as _); a folder of "
                  + "its own: the --overlay folder would take the same names"),
            .flag("--category-mask", "with --masks, also write MediaPipe's category mask as DIR/<name>_category.png "
                  + "(a selfie model: 0 the person, 255 the background; a multi-class one: the class index)"),
            .text("--keep", "LABEL,...", default: "person",
                  "with --background and a multi-class model, the classes that stay in front"),
            .text("--background", "blur[=R]|COLOR|IMAGE", default: "none",
                  "with --overlay, write the input with its background replaced: blurred (box blur of radius R "
                  + "pixels, \(defaultBlurRadius) if not given), a colour (#RRGGBB, RRGGBB, R,G,B or black, white, "
                  + "gray, green, blue, red) or an image (scaled to cover each frame, centred, the excess cropped); "
                  + "without it --overlay tints the person"),
        ] + TaskCommandOptions.common,
        ownOptions: ["--category-mask", "--background", "--keep"])

    /// Result JSON: the mask's size and the share of its pixels MediaPipe's category mask gives the person.
    struct Output: Encodable { let width: Int; let height: Int; let person: Float }

    /// Result JSON of a multi-class model: the mask's size and each class's share of the category mask's pixels.
    struct Classes: Encodable { let width: Int; let height: Int; let classes: [String: Float] }

    static let benchmarks = [
        BenchmarkEntry(name: "segment", photo: "pose_standing_1.png", sequence: "pose_dance_1",
                       reference: reference(defaultModel)),
        BenchmarkEntry(name: "segment-general", arguments: ["--model", "selfie_segmentation.tflite"],
                       photo: "pose_standing_1.png", reference: reference("selfie_segmentation.tflite")),
        BenchmarkEntry(name: "segment-landscape", arguments: ["--model", "selfie_segmentation_landscape.tflite"],
                       photo: "pose_standing_1.png", reference: reference("selfie_segmentation_landscape.tflite")),
        // A multi-class model's confidence masks are made only for --masks and --background (see maker):
        // MediaPipe is asked for the category mask alone too.
        BenchmarkEntry(name: "segment-deeplab", arguments: ["--model", "deeplab_v3.tflite"],
                       photo: "pose_standing_1.png",
                       reference: .init("ImageSegmenter", model: "deeplab_v3.tflite", call: "segment",
                                        options: ["output_category_mask": 1, "output_confidence_masks": 0])),
    ]

    /// The person's confidence (of a multi-class model, each class's), and MediaPipe's category mask with
    /// --category-mask: the names the output rule checks before any work.
    static func maskSuffixes(_ options: ParsedOptions) -> [String] {
        let category = options.flag("--category-mask") ? ["_category"] : []
        guard let model = try? TaskCommandOptions.modelPath(options, default: defaultModel, kind: .segmenter) else {
            return [""] + category
        }
        let (labels, classes) = modelClasses(model)
        guard classes > 1 else { return [""] + category }
        return (0..<classes).map { "_" + fileLabel(classLabel($0, labels)) } + category
    }

    /// A segmentation model's labels and classes (the last output's channels; 1 when it cannot be read).
    static func modelClasses(_ model: String) -> (labels: [String], classes: Int) {
        let file = try? ModelAsset.loadModel(model)
        let labels = (try? file?.labels()) ?? []
        let classes = file.flatMap { m in m.subgraphs.first.flatMap { sg in sg.outputs.last.flatMap {
            sg.tensors.indices.contains($0) ? sg.tensors[$0].shape.last : nil } } } ?? 1
        return (labels, classes)
    }

    /// A class's name in files and summaries: its label, or `class<i>` without one.
    static func classLabel(_ i: Int, _ labels: [String]) -> String {
        i < labels.count && !labels[i].isEmpty ? labels[i] : "class\(i)"
    }

    static func reference(_ model: String) -> BenchmarkEntry.Reference {
        .init("ImageSegmenter", model: model, call: "segment", options: ["output_category_mask": 1])
    }

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        // Every check of --background is made once, before the first frame.
        let background = try o.string("--background").map { try parseBackground($0) }
        if background != nil && !o.isSet("--overlay") {
            throw UsageError("--background needs --overlay DIR|FILE.mp4, where the picture with its new background "
                             + "is written")
        }
        let category = o.flag("--category-mask")
        if category && !o.isSet("--masks") {
            throw UsageError("--category-mask writes into the --masks folder; give --masks DIR")
        }
        let model = try TaskCommandOptions.modelPath(o, default: defaultModel, kind: .segmenter)
        // The classes: the last output's channels (the kind check made it [1, H, W, C]).
        let (labels, classes) = modelClasses(model)
        let multiClass = classes > 1
        let keep = try keptClasses(o, labels: multiClass ? labels : Array(labels.prefix(1)), model: model)
        // A mask per class is a float per pixel and class (21 for deeplab): made only when written or composited.
        let confidence = !multiClass || o.isSet("--masks") || background != nil
        return TaskMaker { setup in
            let options = setup.options(ImageSegmenterOptions(), model: model)
            options.shouldOutputCategoryMask = true
            options.shouldOutputConfidenceMasks = confidence
            // A compositor per task: it keeps the scaled background image of the frame size it saw.
            let compositor = try background.map { try BackgroundCompositor(background: $0) }
            let segmenter = try ImageSegmenter(options: options)
            let report = { (r: ImageSegmenterResult) in
                multiClass
                    ? Self.report(r, labels: segmenter.labels, classes: classes, keep: keep, category: category,
                                  compositor: compositor)
                    : Self.report(r, category: category, compositor: compositor)
            }
            options.resultCallback = setup.callback(report)
            return LibraryFrameTask(segmenter, roi: roi, report: report)
        }
    }

    /// `--keep`: the classes of a multi-class model that stay in front of a new background (their indices);
    /// unknown names refused, naming a few real ones. A one-class model keeps its class.
    static func keptClasses(_ o: ParsedOptions, labels: [String], model: String) throws -> [Int] {
        let names = o.isSet("--keep") ? o.list("--keep") : ["person"]
        if labels.count <= 1 {
            if o.isSet("--keep"), names != labels {
                throw UsageError("--keep chooses among the classes of a multi-class model; "
                                 + "\((model as NSString).lastPathComponent) has one class"
                                 + (labels.first.map { " ('\($0)')" } ?? ""))
            }
            return [0]
        }
        return try names.map { name in
            guard let i = labels.firstIndex(of: name) else {
                throw UsageError("--keep: '\(name)' is not a class of \((model as NSString).lastPathComponent); "
                                 + "classes such as " + LabelSuggestions.near(name, in: labels).map { "'\($0)'" }
                                 .joined(separator: ", "))
            }
            return i
        }
    }

    /// A class's name in a file name: spaces (and path separators) as `_`.
    static func fileLabel(_ label: String) -> String {
        String(label.map { $0 == " " || $0 == "/" || $0 == "\\" ? "_" : $0 })
    }

    /// A multi-class model's report: each class's share of the category mask, a mask per class, the kept classes'
    /// summed confidence as the compositing alpha.
    static func report(_ r: ImageSegmenterResult, labels: [String], classes: Int, keep: [Int], category: Bool,
                       compositor: BackgroundCompositor?) -> FrameReport {
        let masks = r.confidenceMasks ?? []
        let bytes = r.categoryMask?.uint8Data ?? []
        var counts = [Int](repeating: 0, count: classes)
        for b in bytes where Int(b) < counts.count { counts[Int(b)] += 1 }
        func label(_ i: Int) -> String { classLabel(i, labels) }
        var shares: [String: Float] = [:]
        for i in counts.indices { shares[label(i)] = bytes.isEmpty ? 0 : Float(counts[i]) / Float(bytes.count) }
        let output = Classes(width: r.categoryMask?.width ?? 0, height: r.categoryMask?.height ?? 0, classes: shares)
        let top = counts.indices.filter { counts[$0] > 0 }.sorted { counts[$0] > counts[$1] }.prefix(3)
        let summary = top.isEmpty ? "no class" : top.map {
            String(format: "%@ %.1f%%", label($0), Double(shares[label($0)] ?? 0) * 100)
        }.joined(separator: ", ")
        var frameMasks = masks.enumerated().map { i, mask in
            FrameMask.largest(of: [mask], suffix: "_" + fileLabel(label(i)))
        }
        if category, let mask = r.categoryMask {
            frameMasks.append(FrameMask(suffix: "_category") { w, h in
                mask.width == w && mask.height == h ? mask.uint8Data : [UInt8](repeating: 255, count: w * h)
            })
        }
        var report = FrameReport(result: output, summary: summary) { overlay in
            guard let compositor, let first = masks.first, first.width == overlay.width,
                  first.height == overlay.height,
                  let frame = try? MPImage(pixels: overlay.pixels, width: overlay.width, height: overlay.height,
                                           pixelFormat: .rgb8),
                  let alpha = keptConfidence(masks, keep: keep),
                  let composed = try? compositor.composite(frame, mask: alpha) else { return }
            overlay = Overlay(composed)
        }
        report.masks = frameMasks
        return report
    }

    /// The kept classes' confidences summed per pixel (clamped to 1): the probability the pixel stays in front.
    static func keptConfidence(_ masks: [Mask], keep: [Int]) -> Mask? {
        guard let first = masks.first else { return nil }
        var alpha = [Float](repeating: 0, count: first.width * first.height)
        for k in Set(keep) where k < masks.count {
            for (i, v) in masks[k].float32Data.enumerated() where i < alpha.count { alpha[i] += v }
        }
        return Mask(width: first.width, height: first.height, float32Data: alpha.map { min($0, 1) })
    }

    static func report(_ r: ImageSegmenterResult, category: Bool, compositor: BackgroundCompositor?) -> FrameReport {
        let confidence = r.confidenceMasks?.first
        let bytes = r.categoryMask?.uint8Data ?? []
        let person = bytes.isEmpty ? 0 : Float(bytes.reduce(0) { $0 + ($1 == 0 ? 1 : 0) }) / Float(bytes.count)
        let output = Output(width: r.categoryMask?.width ?? 0, height: r.categoryMask?.height ?? 0, person: person)
        var masks = [FrameMask.largest(of: confidence.map { [$0] } ?? [])]
        if category, let mask = r.categoryMask {
            masks.append(FrameMask(suffix: "_category") { w, h in
                mask.width == w && mask.height == h ? mask.uint8Data : [UInt8](repeating: 255, count: w * h)
            })
        }
        var report = FrameReport(result: output, summary: String(format: "person %.1f%% of the image", person * 100)) {
            overlay in
            guard let mask = confidence, mask.width == overlay.width, mask.height == overlay.height else { return }
            guard let compositor else {
                // No background to put in: the person is tinted, so the drawing shows the mask.
                tint(&overlay, mask)
                return
            }
            guard let frame = try? MPImage(pixels: overlay.pixels, width: overlay.width, height: overlay.height,
                                           pixelFormat: .rgb8),
                  let composed = try? compositor.composite(frame, mask: mask) else { return }
            overlay = Overlay(composed)
        }
        report.masks = masks
        return report
    }

    /// The colour the person is tinted with on an overlay without `--background`.
    static let tintColor: (Float, Float, Float) = (64, 160, 255)
    /// How much of the tint a pixel of confidence 1 takes.
    static let tintStrength: Float = 0.5

    /// Blends each pixel toward `tintColor` by its confidence times `tintStrength`: the background stays as it was.
    static func tint(_ overlay: inout Overlay, _ mask: Mask) {
        let p = mask.float32Data
        let color = [tintColor.0, tintColor.1, tintColor.2]
        for i in 0..<min(p.count, overlay.width * overlay.height) {
            let a = min(max(p[i], 0), 1) * tintStrength
            guard a > 0 else { continue }
            for c in 0..<3 {
                let v = Float(overlay.pixels[3 * i + c])
                overlay.pixels[3 * i + c] = UInt8(min(255, max(0, (v + (color[c] - v) * a).rounded())))
            }
        }
    }

    /// `--background`: `blur`, `blur=R`, a colour, or an image file that can be read.
    static func parseBackground(_ text: String) throws -> BackgroundCompositor.Background {
        let lower = text.lowercased()
        if lower == "blur" { return .blur(radius: defaultBlurRadius) }
        if lower.hasPrefix("blur=") {
            guard let r = Int(lower.dropFirst(5)), (0...BackgroundCompositor.maximumBlurRadius).contains(r) else {
                throw UsageError("--background \(text): the blur radius must be a whole number of pixels, 0 to "
                                 + "\(BackgroundCompositor.maximumBlurRadius)")
            }
            return .blur(radius: r)
        }
        if let c = color(lower) { return .color(red: c.0, green: c.1, blue: c.2) }
        let found = OutputPath.kind(text, following: true)
        guard found != .missing else {
            // A path (a folder part or an image's extension) that is not there: said so, not taken for a colour.
            if text.contains("/") || FrameInput.imageExtensions.contains(PathText.fileExtension(text).lowercased()) {
                throw UsageError("--background \(text): no such file")
            }
            throw UsageError("--background \(text) is neither blur[=R], a colour (#RRGGBB, RRGGBB, R,G,B or a name: "
                             + colorNames.keys.sorted().joined(separator: ", ") + ") nor an image file")
        }
        guard found == .regular else { throw UsageError("--background \(text): is \(found.name), not an image file") }
        do {
            return .image(try TaskCommandSupport.load(text, orientation: nil, ignoreExif: false))
        } catch {
            throw UsageError("--background \(text): the image cannot be read: \(error)")
        }
    }

    static let colorNames: [String: (UInt8, UInt8, UInt8)] = [
        "black": (0, 0, 0), "white": (255, 255, 255), "gray": (128, 128, 128), "green": (0, 255, 0),
        "blue": (0, 0, 255), "red": (255, 0, 0),
    ]

    /// `#RRGGBB`, `RRGGBB` (hex), `R,G,B` (0-255) or a name; nil when `text` is none of them.
    static func color(_ text: String) -> (UInt8, UInt8, UInt8)? {
        if let named = colorNames[text] { return named }
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        if hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) {
            return (UInt8(v >> 16), UInt8((v >> 8) & 0xff), UInt8(v & 0xff))
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            UInt8($0.trimmingCharacters(in: .whitespaces))
        }
        if parts.count == 3, let r = parts[0], let g = parts[1], let b = parts[2] { return (r, g, b) }
        return nil
    }
}

extension ImageSegmenter: LibraryTask {
    func detect(image: MPImage, imageProcessingOptions: ImageProcessingOptions?) throws -> ImageSegmenterResult {
        try segment(image: image, imageProcessingOptions: imageProcessingOptions)
    }

    func detect(videoFrame: MPImage, timestampInMilliseconds: Int,
                imageProcessingOptions: ImageProcessingOptions?) throws -> ImageSegmenterResult {
        try segment(videoFrame: videoFrame, timestampInMilliseconds: timestampInMilliseconds,
                    imageProcessingOptions: imageProcessingOptions)
    }

    func detectAsync(image: MPImage, timestampInMilliseconds: Int,
                     imageProcessingOptions: ImageProcessingOptions?) throws -> Bool {
        try segmentAsync(image: image, timestampInMilliseconds: timestampInMilliseconds,
                         imageProcessingOptions: imageProcessingOptions)
    }
}
