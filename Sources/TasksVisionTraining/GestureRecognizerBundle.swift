import Foundation
import TasksVision
import TasksVisionFormat

/// `gesture_recognizer.task` as Model Maker's `MetadataWriter.populate` assembles it: a zip of
/// `hand_landmarker.task` and `hand_gesture_recognizer.task`, the latter a zip of
/// `gesture_embedder.tflite`, `canned_gesture_classifier.tflite` and
/// `custom_gesture_classifier.tflite`. The base models come from an installed gesture
/// recognizer bundle; the zips are written as `ZipWriter` writes `.task` bundles.
public enum GestureRecognizerBundle {
    // The member names, as the tasks read them (TaskBundleLayout).
    public static let handLandmarker = TaskBundleLayout.handLandmarkerBundle
    public static let handGestureRecognizer = TaskBundleLayout.handGestureRecognizerBundle
    public static let embedder = TaskBundleLayout.gestureEmbedder
    public static let canned = TaskBundleLayout.cannedGestureClassifier
    public static let custom = TaskBundleLayout.customGestureClassifier

    /// The base models of a gesture recognizer bundle (any custom classifier in it is ignored).
    public struct Base: Sendable {
        public let name: String
        public let handLandmarker: [UInt8]
        public let embedder: [UInt8]
        public let canned: [UInt8]

        /// Reads `gesture_recognizer.task` (a path, as `ModelLocator.resolve` gives it).
        public init(path: String) throws {
            let bundle = try TaskBundle(path: path)
            if let member = TaskBundleLayout.gestureRecognizer.missingMember(in: bundle.contains) {
                throw TrainingError.invalidBaseModel("\(path) has no \(member) (members: "
                    + "\(bundle.memberNames.joined(separator: ", "))); the base must be a gesture_recognizer.task")
            }
            let gestures = try bundle.bundle(GestureRecognizerBundle.handGestureRecognizer)
            name = path
            handLandmarker = try bundle.member(GestureRecognizerBundle.handLandmarker)
            embedder = try gestures.member(GestureRecognizerBundle.embedder)
            canned = try gestures.member(GestureRecognizerBundle.canned)
        }

        /// The hand landmarker bundle's path inside the base, for `HandLandmarker`.
        public var handLandmarkerPath: String { name + ":" + GestureRecognizerBundle.handLandmarker }

        /// The gesture embedder.
        public func gestureEmbedder() throws -> GestureEmbedder {
            try GestureEmbedder(model: try TFLiteModel(bytes: embedder, name: name + ":" + GestureRecognizerBundle
                .handGestureRecognizer + ":" + GestureRecognizerBundle.embedder))
        }
    }

    /// The bundle's bytes: the base models with `customClassifier` added.
    public static func bytes(base: Base, customClassifier: [UInt8]) throws -> [UInt8] {
        let inner = try ZipWriter.storedArchive([(embedder, base.embedder), (canned, base.canned),
                                                 (custom, customClassifier)])
        return try ZipWriter.storedArchive([(handLandmarker, base.handLandmarker), (handGestureRecognizer, inner)])
    }

    /// Writes the bundle to `path` through a temporary file and a rename, so a failed or
    /// interrupted write leaves no partial bundle.
    public static func write(base: Base, classifier: GestureClassifier, to path: String) throws {
        let bytes = try bytes(base: base, customClassifier: try classifier.classifierModel())
        try TrainingFile.write(bytes, to: path)
    }
}
