import Foundation
import TasksVision
import TasksVisionFormat

/// What a model file is, judged from a bundle's members or a `.tflite`'s tensor shapes, so that a
/// command given the wrong kind names what it needs instead of failing deep inside the task.
/// Each kind is one row of `rows`: its name in messages, and how it is recognized.
enum ModelKind: Equatable {
    case faceDetector, palmDetector, handLandmarksDetector, poseDetector, poseLandmarksDetector
    case gestureEmbedder, gestureClassifier
    case handLandmarkerBundle, gestureClassifierBundle, gestureRecognizerBundle, poseLandmarkerBundle
    case faceLandmarkerBundle, holisticLandmarkerBundle
    case segmenter
    case imageClassifier
    case objectDetector

    /// How a kind is recognized: a bundle by its members, a `.tflite` by its first subgraph's shapes.
    enum Signature {
        /// A bundle (or a folder standing for one) holding these members.
        case bundle([String])
        /// A `.tflite` with this many inputs and outputs, and this test of their shapes.
        case model(inputs: Int, outputs: Int, (Shapes) -> Bool)
    }

    /// A `.tflite`'s first subgraph as `Signature.model` tests it.
    struct Shapes {
        let input: [Int]
        /// The side of a square RGB input (1 x side x side x 3), if it is one.
        let square: Int?
        /// The last dimension of each output.
        let lastDims: [Int]
        /// Each output's shape.
        var outputs: [[Int]] = []
    }

    struct Row {
        let kind: ModelKind
        /// As error messages name it: "a hand landmarker bundle".
        let description: String
        let signature: Signature
    }

    /// Every kind; the `.tflite` rows in the order they are tried.
    static let rows: [Row] = [
        Row(kind: .faceDetector, description: "a face detector .tflite", signature: .model(inputs: 1, outputs: 2) {
            ($0.square == 128 || $0.square == 192) && $0.lastDims == [16, 1]
        }),
        Row(kind: .palmDetector, description: "a palm (hand) detector .tflite",
            signature: .model(inputs: 1, outputs: 2) { $0.square == 192 && $0.lastDims == [18, 1] }),
        Row(kind: .poseDetector, description: "a pose detector .tflite",
            signature: .model(inputs: 1, outputs: 2) { $0.square == 224 && $0.lastDims == [12, 1] }),
        Row(kind: .handLandmarksDetector, description: "a hand landmarks .tflite",
            signature: .model(inputs: 1, outputs: 4) { $0.square == 224 }),
        Row(kind: .poseLandmarksDetector, description: "a pose landmarks .tflite",
            signature: .model(inputs: 1, outputs: 5) { $0.square == 256 }),
        Row(kind: .gestureEmbedder, description: "a gesture embedder .tflite",
            signature: .model(inputs: 3, outputs: 1) { $0.square == nil && $0.input == [1, 21, 3] }),
        Row(kind: .gestureClassifier, description: "a gesture classifier .tflite",
            signature: .model(inputs: 1, outputs: 1) { $0.square == nil && $0.input == [1, 128] }),
        // An RGB image in, scores out: [1, N] or [1, 1, 1, N] (efficientnet_lite0, Model Maker's classifiers).
        Row(kind: .imageClassifier, description: "an image classification .tflite",
            signature: .model(inputs: 1, outputs: 1) { s in s.input.count == 4 && s.input[3] == 3
                && s.outputs.allSatisfy { $0.count == 2 || ($0.count == 4 && $0[1] == 1 && $0[2] == 1) } }),
        // An image in, an image-like [1, H, W, C] segmentation out (the selfie models: one channel).
        Row(kind: .segmenter, description: "an image segmentation .tflite",
            signature: .model(inputs: 1, outputs: 1) { $0.input.count == 4 && $0.input[3] == 3 && $0.lastDims.count == 1
                && (1...64).contains($0.lastDims[0]) }),
        // An image in, per-anchor boxes [1, N, 4] and class scores [1, N, C] out (EfficientDet-Lite, Model Maker).
        Row(kind: .objectDetector, description: "an object detector .tflite",
            signature: .model(inputs: 1, outputs: 2) { $0.input.count == 4 && $0.input[3] == 3
                && $0.lastDims.count == 2 && $0.lastDims.contains(4) }),
        Row(kind: .handLandmarkerBundle, description: "a hand landmarker bundle",
            signature: .bundle(["hand_detector.tflite", "hand_landmarks_detector.tflite"])),
        Row(kind: .gestureClassifierBundle, description: "a hand gesture classifier bundle",
            signature: .bundle(["gesture_embedder.tflite", "canned_gesture_classifier.tflite"])),
        Row(kind: .gestureRecognizerBundle, description: "a gesture recognizer bundle",
            signature: .bundle(["hand_landmarker.task", "hand_gesture_recognizer.task"])),
        Row(kind: .poseLandmarkerBundle, description: "a pose landmarker bundle",
            signature: .bundle(["pose_detector.tflite", "pose_landmarks_detector.tflite"])),
        Row(kind: .faceLandmarkerBundle, description: "a face landmarker bundle",
            signature: .bundle(["face_detector.tflite", "face_landmarks_detector.tflite"])),
        Row(kind: .holisticLandmarkerBundle, description: "a holistic landmarker bundle",
            signature: .bundle(HolisticLandmarker.bundleMembers)),
    ]

    private var row: Row? { Self.rows.first { $0.kind == self } }

    /// As error messages name it: "a hand landmarker bundle".
    var description: String { row?.description ?? "" }

    /// The members that make a bundle (or a folder standing for one) of this kind.
    var members: [String]? {
        if case .bundle(let members)? = row?.signature { return members }
        return nil
    }

    /// What a command needing this kind asks for: "a face detector .tflite",
    /// "a hand landmarker bundle (.task with hand_detector.tflite + hand_landmarks_detector.tflite)".
    var need: String {
        members.map { "\(description) (.task with \($0.joined(separator: " + ")))" } ?? description
    }

    static var bundles: [ModelKind] { rows.filter { $0.kind.members != nil }.map(\.kind) }

    /// Refuses a model recognized as another kind. A file that cannot be read or recognized is left
    /// to the task, whose error says precisely what is wrong with it.
    func require(_ path: String, command: String) throws {
        let found = Self.inspect(path)
        guard let other = found.first, !found.contains(self) else { return }
        let name = PathText.lastComponent(path)
        throw UsageError("\(command) needs \(need); \(name) is \(other.description), not \(description)")
    }

    /// The kinds of a `.tflite`, `.task`, bundle member (`a.task:b.tflite`) or model folder; empty if unknown.
    /// A folder can be several: the four model files of a gesture recognizer make a hand landmarker too.
    static func inspect(_ path: String) -> [ModelKind] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let has = { (member: String) in FileManager.default.fileExists(atPath: path + "/" + member) }
            var kinds = bundleKinds(has)
            // A folder stands for nested bundles too (the tasks look their members up in it).
            let flat = [ModelKind.handLandmarkerBundle, .gestureClassifierBundle].flatMap { $0.members ?? [] }
            if flat.allSatisfy(has) && !kinds.contains(.gestureRecognizerBundle) {
                kinds.append(.gestureRecognizerBundle)
            }
            return kinds
        }
        guard let (bytes, name) = try? ModelAsset.load(path) else { return [] }
        // A .tflite with associated files is a zip too, so the flatbuffer is tried first.
        if let model = try? TFLiteModel(bytes: bytes, name: name) { return modelKind(model).map { [$0] } ?? [] }
        guard let bundle = try? TaskBundle(bytes: bytes, name: name) else { return [] }
        return bundleKinds(bundle.contains)
    }

    static func bundleKinds(_ contains: (String) -> Bool) -> [ModelKind] {
        bundles.filter { kind in (kind.members ?? []).allSatisfy(contains) }
    }

    /// Judged by the first subgraph's shapes (the official models' signatures).
    static func modelKind(_ model: TFLiteModel) -> ModelKind? {
        guard let sg = model.subgraphs.first else { return nil }
        let inputs = sg.inputs.compactMap { sg.tensors.indices.contains($0) ? sg.tensors[$0].shape : nil }
        let outputs = sg.outputs.compactMap { sg.tensors.indices.contains($0) ? sg.tensors[$0].shape : nil }
        guard inputs.count == sg.inputs.count, outputs.count == sg.outputs.count, let input = inputs.first else {
            return nil
        }
        let square = input.count == 4 && input[1] == input[2] && input[3] == 3 ? input[1] : nil
        let shapes = Shapes(input: input, square: square, lastDims: outputs.map { $0.last ?? 0 }, outputs: outputs)
        return rows.first { row in
            guard case let .model(inputCount, outputCount, matches) = row.signature else { return false }
            return inputCount == inputs.count && outputCount == outputs.count && matches(shapes)
        }?.kind
    }
}
