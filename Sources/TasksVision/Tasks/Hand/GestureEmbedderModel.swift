import TasksVisionEngine
import TasksVisionFormat

/// MediaPipe's gesture embedder (`gesture_embedder.tflite`) as the gesture recognizer loads it, for
/// the recognizer and for training (`package` access), so that both run and check it the same way.
package enum GestureEmbedderModel {
    /// Its inputs: a hand's 21 landmarks, the handedness score and the 21 world landmarks.
    package static let inputShapes = "[1,21,3], [1,1], [1,21,3]"

    /// The embedder's interpreter (one thread, as the recognizer's graph runs it); `refuse` makes the
    /// error for a model without the embedder's inputs.
    package static func interpreter(_ model: TFLiteModel, refuse: (Interpreter) -> Error) throws -> Interpreter {
        let interpreter = try Interpreter(model: model, options: .init(threads: 1))
        guard interpreter.inputs.map(\.elementCount) == [63, 1, 63],
              (interpreter.inputs + interpreter.outputs.prefix(1)).allSatisfy({ $0.type == .float32 }) else {
            throw refuse(interpreter)
        }
        return interpreter
    }
}
