/// MediaPipe's task bundles: the members each one holds, by their official names, written once for the tasks,
/// training and the command line (which tells model kinds apart by them). Package-internal: other targets of
/// this package read it (`package` access), apps do not see it.
package struct TaskBundleLayout: Sendable, Equatable {
    /// The bundle as messages name it: "hand landmarker bundle".
    package let name: String
    /// The members a bundle of this kind holds (a folder standing for one: the same files).
    package let members: [String]

    package init(name: String, members: [String]) {
        self.name = name
        self.members = members
    }

    /// The first member that `contains` does not find; nil when all are there.
    package func missingMember(in contains: (String) -> Bool) -> String? { members.first { !contains($0) } }

    /// "a hand landmarker bundle holds hand_detector.tflite and hand_landmarks_detector.tflite".
    package var holds: String { "a \(name) holds " + members.joined(separator: " and ") }
}

extension TaskBundleLayout {
    /// `hand_landmarker.task`.
    package static let handLandmarker = TaskBundleLayout(name: "hand landmarker bundle",
                                                         members: [palmDetector, handLandmarksDetector])
    /// `hand_gesture_recognizer.task` (a custom classifier, when there is one, is an optional member).
    package static let handGestureRecognizer = TaskBundleLayout(name: "hand gesture classifier bundle",
                                                                members: [gestureEmbedder, cannedGestureClassifier])
    /// `gesture_recognizer.task`: two nested bundles.
    package static let gestureRecognizer = TaskBundleLayout(
        name: "gesture recognizer bundle", members: [handLandmarkerBundle, handGestureRecognizerBundle])
    /// `pose_landmarker_*.task`.
    package static let poseLandmarker = TaskBundleLayout(name: "pose landmarker bundle",
                                                         members: [poseDetector, poseLandmarksDetector])

    package static let palmDetector = "hand_detector.tflite"
    package static let handLandmarksDetector = "hand_landmarks_detector.tflite"
    package static let handLandmarkerBundle = "hand_landmarker.task"
    package static let handGestureRecognizerBundle = "hand_gesture_recognizer.task"
    package static let gestureEmbedder = "gesture_embedder.tflite"
    package static let cannedGestureClassifier = "canned_gesture_classifier.tflite"
    package static let customGestureClassifier = "custom_gesture_classifier.tflite"
    package static let poseDetector = "pose_detector.tflite"
    package static let poseLandmarksDetector = "pose_landmarks_detector.tflite"
}
