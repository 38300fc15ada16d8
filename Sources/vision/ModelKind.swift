import Foundation
import TasksVisionFormat

/// What a model file is, judged from a bundle's members or a `.tflite`'s tensor shapes, so that a
/// command given the wrong kind names what it needs instead of failing deep inside the task.
enum ModelKind: Equatable {
    case faceDetector, palmDetector, handLandmarksDetector, poseDetector, poseLandmarksDetector
    case gestureEmbedder, gestureClassifier
    case handLandmarkerBundle, gestureClassifierBundle, gestureRecognizerBundle, poseLandmarkerBundle
    case faceLandmarkerBundle

    /// As error messages name it: "a hand landmarker bundle".
    var description: String {
        switch self {
        case .faceDetector: return "a face detector .tflite"
        case .palmDetector: return "a palm (hand) detector .tflite"
        case .handLandmarksDetector: return "a hand landmarks .tflite"
        case .poseDetector: return "a pose detector .tflite"
        case .poseLandmarksDetector: return "a pose landmarks .tflite"
        case .gestureEmbedder: return "a gesture embedder .tflite"
        case .gestureClassifier: return "a gesture classifier .tflite"
        case .handLandmarkerBundle: return "a hand landmarker bundle"
        case .gestureClassifierBundle: return "a hand gesture classifier bundle"
        case .gestureRecognizerBundle: return "a gesture recognizer bundle"
        case .poseLandmarkerBundle: return "a pose landmarker bundle"
        case .faceLandmarkerBundle: return "a face landmarker bundle"
        }
    }

    /// The members that make a bundle (or a folder standing for one) of this kind.
    var members: [String]? {
        switch self {
        case .handLandmarkerBundle: return ["hand_detector.tflite", "hand_landmarks_detector.tflite"]
        case .gestureClassifierBundle: return ["gesture_embedder.tflite", "canned_gesture_classifier.tflite"]
        case .gestureRecognizerBundle: return ["hand_landmarker.task", "hand_gesture_recognizer.task"]
        case .poseLandmarkerBundle: return ["pose_detector.tflite", "pose_landmarks_detector.tflite"]
        case .faceLandmarkerBundle: return ["face_detector.tflite", "face_landmarks_detector.tflite"]
        default: return nil
        }
    }

    /// What a command needing this kind asks for: "a face detector .tflite",
    /// "a hand landmarker bundle (.task with hand_detector.tflite + hand_landmarks_detector.tflite)".
    var need: String {
        members.map { "\(description) (.task with \($0.joined(separator: " + ")))" } ?? description
    }

    static let bundles: [ModelKind] = [.handLandmarkerBundle, .gestureClassifierBundle, .gestureRecognizerBundle,
                                       .poseLandmarkerBundle, .faceLandmarkerBundle]

    /// Refuses a model recognized as another kind. A file that cannot be read or recognized is left
    /// to the task, whose error says precisely what is wrong with it.
    func require(_ path: String, command: String) throws {
        let found = Self.inspect(path)
        guard let other = found.first, !found.contains(self) else { return }
        let name = (path as NSString).lastPathComponent
        throw UsageError("\(command) needs \(need); \(name) is \(other.description)")
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
        let lastDims = outputs.map { $0.last ?? 0 }
        switch (inputs.count, square, outputs.count) {
        case (1, let side?, 2) where (side == 128 || side == 192) && lastDims == [16, 1]: return .faceDetector
        case (1, 192?, 2) where lastDims == [18, 1]: return .palmDetector
        case (1, 224?, 2) where lastDims == [12, 1]: return .poseDetector
        case (1, 224?, 4): return .handLandmarksDetector
        case (1, 256?, 5): return .poseLandmarksDetector
        case (3, nil, 1) where input == [1, 21, 3]: return .gestureEmbedder
        case (1, nil, 1) where input == [1, 128]: return .gestureClassifier
        default: return nil
        }
    }
}
