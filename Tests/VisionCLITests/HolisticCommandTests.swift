import Foundation
import TasksVisionImageIO
import XCTest

/// `vision holistic` against MediaPipe 1.2.3's HolisticLandmarker (Tests/Fixtures/holistic,
/// tools/reference_holistic.py).
final class HolisticCommandTests: XCTestCase {
    let images = CLI.images
    static let fixtures = CLI.root + "/Tests/Fixtures/holistic"

    struct Entry: Decodable {
        let file: String; let rotation: Int?
        let faceLandmarks: [[Double?]], faceBlendshapes: [Double], poseLandmarks: [[Double?]]
        let poseWorldLandmarks: [[Double?]], leftHandLandmarks: [[Double?]], rightHandLandmarks: [[Double?]]
        let leftHandWorldLandmarks: [[Double?]], rightHandWorldLandmarks: [[Double?]]
        struct Mask: Decodable { let file: String? }
        let mask: Mask?

        /// A part's points as [x, y, z, visibility, presence]: the fixture leaves out trailing unset fields.
        func part(_ name: String) -> [[Double?]] {
            let rows: [[Double?]]
            switch name {
            case "faceLandmarks": rows = faceLandmarks
            case "poseLandmarks": rows = poseLandmarks
            case "poseWorldLandmarks": rows = poseWorldLandmarks
            case "leftHandLandmarks": rows = leftHandLandmarks
            case "rightHandLandmarks": rows = rightHandLandmarks
            case "leftHandWorldLandmarks": rows = leftHandWorldLandmarks
            default: rows = rightHandWorldLandmarks
            }
            return rows.map { $0 + [Double?](repeating: nil, count: max(0, 5 - $0.count)) }
        }
    }
    struct Fixture: Decodable { let results: [Entry] }

    static func fixture(_ name: String) throws -> [Entry] {
        try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name)))
            .results
    }

    /// Image mode, a file per rotation (image_rot0.json ... image_rot270.json).
    static func imageFixture() throws -> [Entry] {
        try [0, 90, 180, 270].flatMap { try fixture("image_rot\($0).json") }
    }

    /// The tolerance of a printed value: the fixture's six decimals where the kernels sum as XNNPACK does.
    static func tolerance() throws -> Double {
        let kernels = try CLI.run(["kernels"]).stdout
        return kernels.contains("sums as XNNPACK: yes") && !kernels.contains("rotated quads") ? 1e-6 : 5e-3
    }

    static let parts = ["faceLandmarks", "poseLandmarks", "poseWorldLandmarks", "leftHandLandmarks",
                        "rightHandLandmarks", "leftHandWorldLandmarks", "rightHandWorldLandmarks"]

    /// One JSON result against MediaPipe's: every part, its points' fields, the blendshapes.
    func assertResult(_ result: [String: Any]?, equals e: Entry, tolerance: Double, _ what: String) {
        for name in Self.parts {
            let ours = result?[name] as? [[String: Double]] ?? []
            let theirs = e.part(name)
            XCTAssertEqual(ours.count, theirs.count, "\(what) \(name)")
            for (i, (a, b)) in zip(ours, theirs).enumerated() {
                for (j, key) in ["x", "y", "z", "visibility", "presence"].enumerated() {
                    XCTAssertEqual(a[key] == nil, b[j] == nil, "\(what) \(name)[\(i)].\(key) given on one side only")
                    if let x = a[key], let y = b[j] {
                        XCTAssertEqual(x, y, accuracy: tolerance, "\(what) \(name)[\(i)]")
                    }
                }
            }
        }
        let shapes = result?["faceBlendshapes"] as? [[String: Any]] ?? []
        XCTAssertEqual(shapes.count, e.faceBlendshapes.count, "\(what) faceBlendshapes")
        for (c, score) in zip(shapes, e.faceBlendshapes) {
            XCTAssertEqual(c["score"] as? Double ?? .nan, score, accuracy: tolerance,
                           "\(what) \(c["categoryName"] ?? "")")
        }
    }

    /// Photos of several sizes in one run (MediaPipe's image mode fails on the second with the mask on), each
    /// equal to MediaPipe's on it alone, with its mask as round(255 p) within one level of MediaPipe's.
    func testPhotosOfAnySizeWithMasks() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let names = ["pose_standing_1.png", "face_frontal_1.png", "negative_coffee_1.png", "pose_dance_1.png"]
        let r = try CLI.run(["holistic", "--json", "--blendshapes", "--masks", dir] + names.map { images + "/" + $0 })
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try CLI.jsonLines(r.stdout)
        XCTAssertEqual(lines.count, names.count)
        let reference = try Self.imageFixture()
        let tolerance = try Self.tolerance()
        for (name, line) in zip(names, lines) {
            guard let e = reference.first(where: { $0.file == name && ($0.rotation ?? 0) == 0 }) else {
                XCTFail("no reference for \(name)"); continue
            }
            assertResult(line["result"] as? [String: Any], equals: e, tolerance: tolerance, name)
            let stem = (name as NSString).deletingPathExtension
            let written = try ImageFile.read(dir + "/" + stem + ".png")
            XCTAssertEqual(written.channels, 1, name)
            guard let file = e.mask?.file else {
                XCTAssertEqual(written.pixels.max(), 0, "\(name): no person, an empty mask")
                continue
            }
            let expected = try ImageFile.read(Self.fixtures + "/masks/" + file)
            XCTAssertEqual([written.width, written.height], [expected.width, expected.height], name)
            let largest = zip(written.pixels, expected.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(largest, 1, "\(name): mask levels from MediaPipe's")
        }
        XCTAssertTrue(try CLI.run(["holistic", images + "/pose_standing_1.png"]).stdout
            .contains("pose, face, left hand, right hand"))
    }

    /// A folder of frames in video mode, 33 ms apart as MediaPipe ran it, each frame equal to MediaPipe's.
    func testVideoFolderTracksAsMediaPipe() throws {
        let r = try CLI.run(["holistic", "--json", "--video", CLI.sequences + "/pose_dance_1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try CLI.jsonLines(r.stdout)
        let reference = try Self.fixture("video_pose_dance_1.json")
        XCTAssertEqual(lines.count, reference.count)
        let tolerance = try Self.tolerance()
        for (i, (line, e)) in zip(lines, reference).enumerated() where tolerance < 1e-3 || i == 0 {
            XCTAssertEqual(line["timestampMs"] as? Int, i * 33)
            var result = line["result"] as? [String: Any]
            // Blendshapes were not asked for here.
            result?["faceBlendshapes"] = []
            let noShapes = Entry(file: e.file, rotation: nil, faceLandmarks: e.faceLandmarks, faceBlendshapes: [],
                                 poseLandmarks: e.poseLandmarks, poseWorldLandmarks: e.poseWorldLandmarks,
                                 leftHandLandmarks: e.leftHandLandmarks, rightHandLandmarks: e.rightHandLandmarks,
                                 leftHandWorldLandmarks: e.leftHandWorldLandmarks,
                                 rightHandWorldLandmarks: e.rightHandWorldLandmarks, mask: nil)
            assertResult(result, equals: noShapes, tolerance: tolerance, "frame \(i)")
        }
    }

    func testOverlayDrawsEveryPart() throws {
        let dir = try CLI.temporaryDirectory(removedAfter: self)
        let image = images + "/pose_standing_1.png"
        let r = try CLI.run(["holistic", "--overlay", dir, image])
        XCTAssertEqual(r.status, 0, r.stderr)
        let drawn = try ImageFile.read(dir + "/pose_standing_1.png")
        let photo = try ImageFile.read(image)
        XCTAssertEqual([drawn.width, drawn.height], [photo.width, photo.height])
        // The overlay's colours: the face mesh's grey, the pose's white, the left hand's orange, the right's blue.
        var colours = Set<[UInt8]>()
        for i in stride(from: 0, to: drawn.pixels.count, by: 3) { colours.insert(Array(drawn.pixels[i..<i + 3])) }
        for colour: [UInt8] in [[110, 110, 110], [255, 255, 255], [255, 160, 0], [0, 160, 255]] {
            XCTAssertTrue(colours.contains(colour), "\(colour) drawn")
        }
    }

    func testErrors() throws {
        let photo = images + "/pose_standing_1.png"
        for (args, needle) in [
            (["holistic", "--model", CLI.models + "/hand_landmarker.task", photo],
             "holistic needs a holistic landmarker bundle"),
            (["holistic", "--min-pose-presence-confidence", "1.5", photo], "--min-pose-presence-confidence"),
            (["holistic", "--model", CLI.models + "/pose_landmarker_full.task", photo], "holistic landmarker bundle"),
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
        }
    }
}
