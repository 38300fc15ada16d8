import Foundation
@testable import TasksVision
import TasksVisionFormat
import XCTest

/// The face geometry pipeline (face_geometry/libs) on MediaPipe's landmarks against MediaPipe's transformation
/// matrices (tools/reference_face_parts.py), the metadata reader on the bundle's file and on broken copies, and the
/// Procrustes solver and Jacobi SVD on constructed cases.
final class FaceGeometryPipelineTests: XCTestCase {
    static func metadataBytes() throws -> [UInt8] {
        let bundle = try Paths.model("face_landmarker.task")
        return try ModelAsset.load(bundle + ":geometry_pipeline_metadata_landmarks.binarypb").bytes
    }

    /// MediaPipe's matrices within 1e-5 relative to max(1, |value|), 2e-4 absolute (translations are 30 to 100 cm).
    /// The orders of MediaPipe's Eigen are followed as far as read from its machine code (EigenArithmetic,
    /// JacobiSVD3), and the landmarks are the ones its graph used (the blendshapes from them are its bits), yet 87 of
    /// the 128 values differ (all but the 32 constant ones and 9 others), by up to 3.1e-5 (3.2e-6 relative): some
    /// step is still computed otherwise there.
    func testMatricesAgainstMediaPipe() throws {
        let pipeline = try FaceGeometryPipeline(metadata: try Self.metadataBytes())
        let fixture = try FacePartsFixture.load()
        var worst: Float = 0, worstAbsolute: Float = 0, same = 0, values = 0
        for image in fixture.images {
            for face in image.faces {
                guard let m = pipeline.transformationMatrix(landmarks: face.normalized, imageWidth: image.width,
                                                            imageHeight: image.height) else {
                    XCTFail("\(image.image): no matrix"); continue
                }
                XCTAssertEqual(m.count, 16)
                for (ours, theirs) in zip(m, face.matrix) {
                    worst = max(worst, abs(ours - theirs) / max(1, abs(theirs)))
                    worstAbsolute = max(worstAbsolute, abs(ours - theirs))
                    if ours.bitPattern == theirs.bitPattern { same += 1 }
                    values += 1
                }
                // Row-major: the last row is (0, 0, 0, 1), the translation's z (column 3, row 2) is in front of the
                // camera (negative).
                XCTAssertEqual(Array(m[12...]), [0, 0, 0, 1])
                XCTAssertLessThan(m[11], -10)
            }
        }
        XCTAssertEqual(values, 8 * 16)
        XCTAssertLessThanOrEqual(worst, 1e-5)
        XCTAssertLessThanOrEqual(worstAbsolute, 2e-4)
        print("face geometry: \(same)/\(values) values MediaPipe's bits, largest error \(worstAbsolute) "
              + "(\(worst) relative)")
    }

    func testMetadataOfTheBundle() throws {
        let metadata = try GeometryPipelineMetadata(bytes: try Self.metadataBytes())
        XCTAssertEqual(metadata.vertexCount, 468)
        XCTAssertEqual(metadata.indexBuffer.count % 3, 0)
        XCTAssertEqual(metadata.indexBuffer.count, 898 * 3)
        XCTAssertEqual(metadata.inputSource, .faceLandmarkPipeline)
        XCTAssertFalse(metadata.landmarkWeights.isEmpty)
        XCTAssertTrue(metadata.landmarkWeights.allSatisfy { $0.weight >= 0 && $0.id < 468 })
    }

    /// Truncations inside the canonical mesh (the file's first 15,000 of 19,376 bytes; a cut between two whole
    /// Procrustes weights would leave a valid file) are refused with an error naming the field and the byte, and
    /// so are a few corruptions; none crashes.
    func testCorruptAndTruncatedMetadata() throws {
        let bytes = try Self.metadataBytes()
        XCTAssertEqual(bytes.count, 19376)
        for length in stride(from: 0, to: 15000, by: 97) {
            XCTAssertThrowsError(try FaceGeometryPipeline(metadata: Array(bytes.prefix(length))),
                                 "\(length) bytes") { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("geometry_pipeline_metadata_landmarks.binarypb"), text)
            }
        }
        XCTAssertThrowsError(try GeometryPipelineMetadata(bytes: Array(bytes.prefix(5)))) { error in
            guard case .truncated(let field, _) = error as? GeometryPipelineMetadataError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(field, "canonical_mesh")
        }
        var wrongWire = bytes
        wrongWire[0] = 0x0B  // field 1 as a start-group
        XCTAssertThrowsError(try GeometryPipelineMetadata(bytes: wrongWire)) { error in
            XCTAssertTrue("\(error)".contains("wire type 3"), "\(error)")
        }
        let longVarint = [UInt8](repeating: 0xFF, count: 12)
        XCTAssertThrowsError(try GeometryPipelineMetadata(bytes: longVarint)) { error in
            XCTAssertTrue("\(error)".contains("varint longer than 10 bytes"), "\(error)")
        }
        XCTAssertThrowsError(try GeometryPipelineMetadata(bytes: [])) { error in
            XCTAssertTrue("\(error)".contains("vertex floats"), "\(error)")
        }
    }

    /// A known similarity transform is recovered: scale 2, a rotation about an oblique axis, a translation.
    func testProcrustesRecoversATransform() throws {
        let n = 40
        var sources: [[Float]] = [[], [], []]
        for i in 0..<n {
            sources[0].append(Float(i % 7) - 3); sources[1].append(Float(i % 5) - 2); sources[2].append(Float(i % 3))
        }
        let angle: Float = 0.7, c = cosf(angle), s = sinf(angle)
        let rotation: [Float] = [c, -s, 0, s, c, 0, 0, 0, 1]  // about z
        let tilt: [Float] = [1, 0, 0, 0, cosf(0.3), -sinf(0.3), 0, sinf(0.3), cosf(0.3)]
        let r = ProcrustesSolver.multiply3(tilt, rotation)
        var targets: [[Float]] = [[], [], []]
        for i in 0..<n {
            for row in 0..<3 {
                var v: Float = [5, -3, -60][row]
                for k in 0..<3 { v += 2 * r[3 * row + k] * sources[k][i] }
                targets[row].append(v)
            }
        }
        let weights = (0..<n).map { Float($0 % 4 + 1).squareRoot() }
        let m = try ProcrustesSolver.solve(sources: sources, targets: targets, sqrtWeights: weights)
        for row in 0..<3 {
            for k in 0..<3 { XCTAssertEqual(m[4 * row + k], 2 * r[3 * row + k], accuracy: 1e-5) }
            XCTAssertEqual(m[4 * row + 3], [5, -3, -60][row], accuracy: 1e-4)
        }
        XCTAssertThrowsError(try ProcrustesSolver.solve(sources: sources, targets: targets,
                                                        sqrtWeights: [Float](repeating: 0, count: n)))
    }

    /// The SVD reconstructs its matrix (U diag(s) V^T), with orthonormal U and V and sorted singular values.
    func testJacobiSVD() throws {
        let matrices: [[Float]] = [
            [3, 1, 2, -1, 4, 0.5, 2, -2, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0],
            [1e-3, 2, 0, 5, 0, 0, 0, 0, -7], [2, 2, 2, 2, 2, 2, 2, 2, 2],
        ]
        for a in matrices {
            let svd = try XCTUnwrap(JacobiSVD3(a))
            XCTAssertGreaterThanOrEqual(svd.singularValues[0], svd.singularValues[1])
            XCTAssertGreaterThanOrEqual(svd.singularValues[1], svd.singularValues[2])
            let scale = max(1, a.map(abs).max() ?? 1)
            for i in 0..<3 { for j in 0..<3 {
                var v: Float = 0
                for k in 0..<3 { v += svd.u[3 * i + k] * svd.singularValues[k] * svd.v[3 * j + k] }
                XCTAssertEqual(v, a[3 * i + j], accuracy: 1e-5 * scale, "\(a) at \(i), \(j)")
                var uu: Float = 0, vv: Float = 0
                for k in 0..<3 { uu += svd.u[3 * k + i] * svd.u[3 * k + j]; vv += svd.v[3 * k + i] * svd.v[3 * k + j] }
                XCTAssertEqual(uu, i == j ? 1 : 0, accuracy: 1e-5)
                XCTAssertEqual(vv, i == j ? 1 : 0, accuracy: 1e-5)
            } }
        }
        XCTAssertNil(JacobiSVD3([1, 2, 3, 4, .nan, 6, 7, 8, 9]))
    }

    /// Faces MediaPipe gives no geometry: too few landmarks, all in one spot, an empty frame.
    func testNoGeometry() throws {
        let pipeline = try FaceGeometryPipeline(metadata: try Self.metadataBytes())
        let spot = [NormalizedLandmark](repeating: NormalizedLandmark(x: 0.5, y: 0.5, z: 0), count: 478)
        XCTAssertNil(pipeline.transformationMatrix(landmarks: spot, imageWidth: 640, imageHeight: 480))
        XCTAssertNil(pipeline.transformationMatrix(landmarks: Array(spot.prefix(400)), imageWidth: 640,
                                                   imageHeight: 480))
        let face = try FacePartsFixture.load().images[0].faces[0].normalized
        XCTAssertNil(pipeline.transformationMatrix(landmarks: face, imageWidth: 0, imageHeight: 480))
        XCTAssertNotNil(pipeline.transformationMatrix(landmarks: face, imageWidth: 640, imageHeight: 480))
    }
}
