import TasksVisionEngine
import TasksVisionFormat

/// The blendshapes stage of MediaPipe's face landmarker (face_blendshapes_graph.cc): 146 of the 478 face landmarks
/// (`landmarksSubset`), their x and y times the image's width and height (LandmarksToTensorCalculator with
/// attributes X and Y, not flattened: a [1, 146, 2] tensor), through face_blendshapes.tflite, whose 52 sigmoid
/// outputs are the scores of `categoryNames` in order (TensorsToClassificationCalculator, no activation, top_k 0).
/// The interpreter reduces as the XNNPACK inside MediaPipe does (`reducesOverUnitAxesContiguously`): the model's
/// MEAN of [1, 146, 1] over axis 1 then sums as MediaPipe's, and the scores are MediaPipe's bits.
final class FaceBlendshapesStage {
    let resources: ModelResources

    /// `kLandmarksSubsetIdxs`: the landmarks the blendshapes model reads, in its input order.
    static let landmarksSubset: [Int] = [
        0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65, 66, 67, 70, 78,
        80, 81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136, 144, 145, 146, 148, 149, 150, 152,
        153, 154, 155, 157, 158, 159, 160, 161, 162, 163, 168, 172, 173, 176, 178, 181, 185, 191, 195, 197, 234, 246,
        249, 251, 263, 267, 269, 270, 276, 282, 283, 284, 285, 288, 291, 293, 295, 296, 297, 300, 308, 310, 311, 312,
        314, 317, 318, 321, 323, 324, 332, 334, 336, 338, 356, 361, 362, 365, 373, 374, 375, 377, 378, 379, 380, 381,
        382, 384, 385, 386, 387, 388, 389, 390, 397, 398, 400, 402, 405, 409, 415, 454, 466, 468, 469, 470, 471, 472,
        473, 474, 475, 476, 477,
    ]

    /// `kBlendshapeNames`: the category name of each score, in the model's output order.
    static let categoryNames: [String] = [
        "_neutral", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight", "cheekPuff",
        "cheekSquintLeft", "cheekSquintRight", "eyeBlinkLeft", "eyeBlinkRight", "eyeLookDownLeft", "eyeLookDownRight",
        "eyeLookInLeft", "eyeLookInRight", "eyeLookOutLeft", "eyeLookOutRight", "eyeLookUpLeft", "eyeLookUpRight",
        "eyeSquintLeft", "eyeSquintRight", "eyeWideLeft", "eyeWideRight", "jawForward", "jawLeft", "jawOpen",
        "jawRight", "mouthClose", "mouthDimpleLeft", "mouthDimpleRight", "mouthFrownLeft", "mouthFrownRight",
        "mouthFunnel", "mouthLeft", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthPressLeft", "mouthPressRight",
        "mouthPucker", "mouthRight", "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper",
        "mouthSmileLeft", "mouthSmileRight", "mouthStretchLeft", "mouthStretchRight", "mouthUpperUpLeft",
        "mouthUpperUpRight", "noseSneerLeft", "noseSneerRight",
    ]

    /// The stage on a loaded face_blendshapes.tflite; throws when the model does not take [1, 146, 2] to 52 scores.
    init(resources: ModelResources) throws {
        let interpreter = resources.interpreter
        guard interpreter.inputs.count == 1, interpreter.inputs[0].elementCount == 2 * Self.landmarksSubset.count,
              interpreter.outputs.count == 1, interpreter.outputs[0].elementCount == Self.categoryNames.count else {
            throw VisionTaskError.invalidModel("\(resources.name) is not a blendshapes model "
                                               + "(146 x 2 landmark coordinates in, 52 scores out)")
        }
        self.resources = resources
    }

    /// The stage on face_blendshapes.tflite as read from a file or a bundle's member.
    convenience init(model: TFLiteModel, threads: Int = 1, arena: SharedArena? = nil) throws {
        var options = Self.interpreterOptions
        options.sharedArena = arena
        try self.init(resources: try ModelResources(model: model, threads: threads, options: options))
    }

    /// The options the model's interpreter needs for MediaPipe's bits (give them to `ModelResources`).
    static var interpreterOptions: Interpreter.Options {
        var options = Interpreter.Options()
        options.reducesOverUnitAxesContiguously = true
        return options
    }

    /// The model's input for one face: the subset's x and y in pixels of an image `imageWidth` x `imageHeight`.
    static func inputTensor(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) throws -> [Float] {
        guard landmarks.count == 478 else {
            throw VisionTaskError.invalidOption(
                "landmarks: blendshapes need the 478 face landmarks, got \(landmarks.count)")
        }
        let width = Float(imageWidth), height = Float(imageHeight)
        var values = [Float]()
        values.reserveCapacity(2 * landmarksSubset.count)
        for i in landmarksSubset {
            values.append(landmarks[i].x * width)
            values.append(landmarks[i].y * height)
        }
        return values
    }

    /// The 52 blendshape scores of one face, in `categoryNames`' order.
    func scores(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) throws -> [Float] {
        let input = try Self.inputTensor(landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
        guard let scores = try resources.interpreter.run([input]).first, scores.count == Self.categoryNames.count else {
            throw VisionTaskError.invalidModel("\(resources.name) gave no 52 blendshape scores")
        }
        return scores
    }
}
