import Foundation
import XCTest

final class FaceLandmarksCommandTests: XCTestCase {
    let images = CLI.images

    /// The JSON result in MediaPipe's names, equal to the reference fixture's landmarks at its six decimals.
    func testJSONInMediaPipesNames() throws {
        let r = try CLI.run(["face-landmarks", "--json", "--num-faces", "3", "--tongue-out",
                             images + "/faces_two_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let result = obj?["result"] as? [String: Any]
        let faces = result?["faceLandmarks"] as? [[[String: Double]]]
        XCTAssertEqual(faces?.count, 2)
        XCTAssertEqual(faces?.first?.count, 478)
        XCTAssertEqual(Set(faces?.first?.first?.keys.map { $0 } ?? []), ["x", "y", "z"])
        XCTAssertEqual((result?["tongueOutScores"] as? [Double])?.count, 2)
        XCTAssertEqual((result?["faceBlendshapes"] as? [Any])?.count, 0)
        XCTAssertEqual((result?["facialTransformationMatrixes"] as? [Any])?.count, 0)

        struct Face: Decodable { let landmarks: [Double] }
        struct Entry: Decodable { let file: String; let rotation: Int; let faces: [Face] }
        struct Fixture: Decodable { let results: [Entry] }
        let fx = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: URL(
            fileURLWithPath: CLI.root + "/Tests/Fixtures/face_landmarks/image_faces.json")))
        guard let ref = fx.results.first(where: { $0.file == "faces_two_1.png" && $0.rotation == 0 }),
              let ours = faces else { return XCTFail("no reference") }
        for reference in ref.faces {
            // Matched by the nose tip (landmark 1).
            guard let face = ours.min(by: { abs(($0[1]["x"] ?? 0) - reference.landmarks[3])
                < abs(($1[1]["x"] ?? 0) - reference.landmarks[3]) }) else { continue }
            for (k, lm) in face.enumerated() {
                XCTAssertEqual(lm["x"] ?? .nan, reference.landmarks[3 * k], accuracy: 2e-3)
                XCTAssertEqual(lm["y"] ?? .nan, reference.landmarks[3 * k + 1], accuracy: 2e-3)
            }
        }
    }

    func testSummaryOverlayAndVideo() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let r = try CLI.run(["face-landmarks", "--overlay", dir, images + "/face_frontal_1.png"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("1 face"), r.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).count, 1)
        let v = try CLI.run(["face-landmarks", "--json", "--video", CLI.sequences + "/pose_dance_1"])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertEqual(v.stdout.split(separator: "\n").count, 40)
    }

    func testErrors() throws {
        for (args, needle) in [
            (["face-landmarks", "--num-faces", "0", images + "/face_frontal_1.png"], "--num-faces 0"),
            (["face-landmarks", "--model", CLI.models + "/hand_landmarker.task", images + "/face_frontal_1.png"],
             "face landmarker bundle"),
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
        }
    }
}
