import TasksVision
import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's gesture embedder (`gesture_embedder.tflite`): a hand's landmarks, world landmarks
/// and handedness to a 128-d embedding, the input of the gesture classifiers.
public final class GestureEmbedder: @unchecked Sendable {
    let interpreter: Interpreter
    public var embeddingSize: Int { interpreter.outputs.first?.elementCount ?? 0 }

    /// The embedder of a parsed `gesture_embedder.tflite`.
    public init(model: TFLiteModel) throws {
        func refuse(_ interpreter: Interpreter) -> Error {
            TrainingError.invalidBaseModel("\(model.name) takes inputs \(interpreter.inputs.map(\.shape)) and has "
                                           + "\(interpreter.outputs.count) outputs; a gesture embedder takes "
                                           + "\(GestureEmbedderModel.inputShapes) and gives one embedding")
        }
        // The recognizer's loader checks the inputs; training also needs the one embedding.
        interpreter = try GestureEmbedderModel.interpreter(model, refuse: refuse)
        guard interpreter.outputs.count == 1 else { throw refuse(interpreter) }
    }

    /// The embedding of a hand, with its features made the `features` way.
    public func embedding(_ hand: GestureHand, features: GestureFeatures = .runtime) throws -> [Float] {
        guard hand.landmarks.count == 21, hand.worldLandmarks.count == 21 else {
            throw TrainingError.invalidSample("a hand has \(hand.landmarks.count) landmarks and "
                                              + "\(hand.worldLandmarks.count) world landmarks, expected 21 of each")
        }
        let aspect = features == .runtime
        let image = LandmarksToMatrix.features(hand.landmarks, imageWidth: aspect ? hand.imageWidth : nil,
                                               imageHeight: aspect ? hand.imageHeight : nil, rotation: 0)
        let world = LandmarksToMatrix.features(hand.worldLandmarks, imageWidth: nil, imageHeight: nil, rotation: 0)
        let handedness = features == .runtime ? hand.rightHandProbability : hand.handednessScore
        try interpreter.setInput(0, image)
        try interpreter.setInput(1, [handedness])
        try interpreter.setInput(2, world)
        interpreter.invoke()
        return try interpreter.output(0)
    }
}
