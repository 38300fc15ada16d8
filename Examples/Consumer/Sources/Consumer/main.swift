import Foundation
import TasksVision
import TasksVisionImageIO
import TasksVisionPoseClassification

// A face, a hand and a pose on one photo, with the models found by name as ModelLocator describes
// (TASKSVISION_MODELS, the per-user folder, or Models/). Prints one line per task; exits 1 when a task
// finds nothing, so a script can check it.
let path = CommandLine.arguments.dropFirst().first ?? "sample.jpg"
do {
    let image = try MPImage(contentsOfFile: path)

    let faceOptions = FaceDetectorOptions()
    faceOptions.baseOptions.modelAssetPath = "blaze_face_short_range.tflite"
    let faces = try FaceDetector(options: faceOptions).detect(image: image).detections
    print("faces: \(faces.count), score \(faces.first?.categories.first?.score ?? 0)")

    let handOptions = HandLandmarkerOptions()
    handOptions.baseOptions.modelAssetPath = "hand_landmarker.task"
    let hands = try HandLandmarker(options: handOptions).detect(image: image)
    print("hands: \(hands.landmarks.count), \(hands.handedness.first?.first?.categoryName ?? "-")")

    let poseOptions = PoseLandmarkerOptions()
    poseOptions.baseOptions.modelAssetPath = "pose_landmarker_lite.task"
    let pose = try PoseLandmarker(options: poseOptions).detect(image: image)
    let points = PointF3D.landmarks(of: pose.landmarks.first ?? [], imageWidth: image.width,
                                    imageHeight: image.height)
    // ML Kit's angle at the right elbow (landmarks 12, 14, 16: shoulder, elbow, wrist).
    let elbow = points.count == 33 ? PoseAngle.angle(first: points[12], mid: points[14], last: points[16]) : 0
    print("poses: \(pose.landmarks.count), right elbow \(Int(elbow.rounded())) degrees")

    if faces.isEmpty || hands.landmarks.isEmpty || pose.landmarks.isEmpty { exit(1) }
} catch {
    print("error: \(error)")
    exit(1)
}
