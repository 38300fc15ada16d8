import Foundation
@testable import TasksVision
import TasksVisionEngine
import TasksVisionFormat
import XCTest

/// MediaPipe 1.2.3's FaceLandmarker on five photos (tools/reference_face_parts.py): per face its 478 landmarks, its
/// 52 blendshape scores, TFLite's scores on the model input built from those landmarks, and the transformation
/// matrix (row-major).
struct FacePartsFixture: Decodable {
    struct Face: Decodable {
        let landmarks: [[Float]]
        let blendshapes: [Float]
        let tfliteBlendshapes: [Float]
        let categoryNames: [String]
        let matrix: [Float]
        var normalized: [NormalizedLandmark] { landmarks.map { NormalizedLandmark(x: $0[0], y: $0[1], z: $0[2]) } }
    }
    struct Image: Decodable { let image: String; let width: Int; let height: Int; let faces: [Face] }
    let images: [Image]

    static func load() throws -> FacePartsFixture {
        let url = URL(fileURLWithPath: Paths.fixtures + "/face_parts/mediapipe.json")
        return try JSONDecoder().decode(FacePartsFixture.self, from: Data(contentsOf: url))
    }
}

/// The blendshapes stage (face_blendshapes_graph.cc) on MediaPipe's landmarks: the model input as the graph builds
/// it, then the engine reducing as MediaPipe's own XNNPACK does, which gives MediaPipe's scores bit for bit on a
/// kernel set with XNNPACK's sigmoid (every value of the eight faces); with the engine's default reductions,
/// ai-edge-litert's bits on the same input (its XNNPACK sums the model's second MEAN row by row; MediaPipe's differ
/// from those by up to 2.3e-6).
final class FaceBlendshapesStageTests: XCTestCase {
    func stage(mediapipeReductions: Bool = true) throws -> FaceBlendshapesStage {
        let bundle = try Paths.model("face_landmarker.task")
        let model = try ModelAsset.loadModel(bundle + ":face_blendshapes.tflite")
        if mediapipeReductions { return try FaceBlendshapesStage(model: model) }
        return try FaceBlendshapesStage(resources: try ModelResources(model: model, threads: 1))
    }

    func testScoresAgainstMediaPipeAndTFLite() throws {
        let fixture = try FacePartsFixture.load()
        let mediapipe = try stage(), tflite = try stage(mediapipeReductions: false)
        var faces = 0, sameAsMediaPipe = 0, sameAsTFLite = 0, values = 0
        var worstMediaPipe: Float = 0, worstTFLite: Float = 0
        for image in fixture.images {
            for face in image.faces {
                let scores = try mediapipe.scores(landmarks: face.normalized, imageWidth: image.width,
                                                  imageHeight: image.height)
                let litert = try tflite.scores(landmarks: face.normalized, imageWidth: image.width,
                                               imageHeight: image.height)
                XCTAssertEqual(scores.count, 52)
                XCTAssertEqual(face.categoryNames, FaceBlendshapesStage.categoryNames, "MediaPipe's category names")
                for i in 0..<52 {
                    worstMediaPipe = max(worstMediaPipe, abs(scores[i] - face.blendshapes[i]))
                    worstTFLite = max(worstTFLite, abs(litert[i] - face.tfliteBlendshapes[i]))
                    if scores[i].bitPattern == face.blendshapes[i].bitPattern { sameAsMediaPipe += 1 }
                    if litert[i].bitPattern == face.tfliteBlendshapes[i].bitPattern { sameAsTFLite += 1 }
                }
                values += 52
                faces += 1
            }
        }
        XCTAssertEqual(faces, 8)
        let set = EngineArithmetic.defaultKernelSet
        if EngineArithmetic.matchesX86XNNPACK && (set == .avx512 || set == .avx2) {
            XCTAssertEqual(sameAsMediaPipe, values, "scores that are MediaPipe's bits")
            XCTAssertEqual(sameAsTFLite, values, "scores that are ai-edge-litert's bits, with its reductions")
        } else {
            // The portable set's sigmoid formula (every layer before it XNNPACK's bits): within 2 ulp below 1.
            XCTAssertLessThanOrEqual(worstMediaPipe, 1.2e-7)
            XCTAssertLessThanOrEqual(worstTFLite, 1.2e-7)
        }
        print("blendshapes: \(sameAsMediaPipe)/\(values) MediaPipe's bits (largest difference \(worstMediaPipe)); "
              + "with ai-edge-litert's reductions \(sameAsTFLite)/\(values) its bits (\(worstTFLite))")
    }

    /// The input tensor: the 146 landmarks of kLandmarksSubsetIdxs in order, x times the width, y times the height.
    func testInputTensorAndNames() throws {
        XCTAssertEqual(FaceBlendshapesStage.landmarksSubset.count, 146)
        XCTAssertEqual(Set(FaceBlendshapesStage.landmarksSubset).count, 146)
        XCTAssertEqual(FaceBlendshapesStage.landmarksSubset.last, 477)
        XCTAssertEqual(FaceBlendshapesStage.categoryNames.count, 52)
        XCTAssertEqual(FaceBlendshapesStage.categoryNames[25], "jawOpen")
        let landmarks = (0..<478).map { NormalizedLandmark(x: Float($0) / 478, y: 1 - Float($0) / 478, z: 0.5) }
        let tensor = try FaceBlendshapesStage.inputTensor(landmarks: landmarks, imageWidth: 640, imageHeight: 480)
        XCTAssertEqual(tensor.count, 292)
        XCTAssertEqual(tensor[4], Float(4) / 478 * 640)  // the third subset landmark is 4
        XCTAssertEqual(tensor[5], (1 - Float(4) / 478) * 480)
        XCTAssertThrowsError(try FaceBlendshapesStage.inputTensor(landmarks: Array(landmarks.prefix(468)),
                                                                 imageWidth: 640, imageHeight: 480)) { error in
            XCTAssertTrue("\(error)".contains("478"), "\(error)")
        }
    }

    /// A model that is not the blendshapes model is refused with its name.
    func testRefusesAnotherModel() throws {
        let bundle = try Paths.model("face_landmarker.task")
        XCTAssertThrowsError(try FaceBlendshapesStage(model: try ModelAsset.loadModel(
            bundle + ":face_detector.tflite"))) { error in
            XCTAssertTrue("\(error)".contains("not a blendshapes model"), "\(error)")
        }
    }
}
