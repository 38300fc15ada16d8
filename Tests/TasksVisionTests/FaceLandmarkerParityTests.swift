import Foundation
@testable import TasksVision
import TasksVisionEngine
import XCTest

/// FaceLandmarker against the official MediaPipe 1.2.3 (tools/reference_face_landmarks.py): the face
/// photos upright and turned (numFaces 3), and video mode on the virtual-camera sequences (pan, roll,
/// zoom over face_frontal_1.png, numFaces 1, so tracking and MediaPipe's one-euro smoothing run; numFaces 2
/// drifting over faces_two_1.png) and
/// on pose_dance_1 (whose dancer's face the short-range detector does not find, in MediaPipe too).
///
/// Tolerances: the same number of faces; landmarks (x, y, z), blendshape scores and matrix entries
/// within `landmarkTolerance`, `blendshapeTolerance`, `matrixTolerance` (relative). The blendshape and
/// matrix differences (up to 3.6e-6 and 7e-5, relative 4e-6) are those the blendshapes stage and the geometry
/// pipeline show on MediaPipe's own landmarks (FaceGeometryPipelineTests and the blendshapes stage's tests).
/// Where every layer sums as
/// XNNPACK does (`EngineArithmetic.matchesX86XNNPACK`) the landmarks must equal MediaPipe's printed six
/// decimals (difference at most 1e-6, the rounding of the print plus one float step).
final class FaceLandmarkerParityTests: XCTestCase {
    struct Face: Decodable { let landmarks: [Float]; let blendshapes: [Float]?; let matrix: [Float]? }
    struct Entry: Decodable {
        let file: String?; let width: Int?; let height: Int?; let rotation: Int?; let timestampMs: Int?
        let affine: [Double]?; let faces: [Face]
    }
    struct Fixture: Decodable {
        let results: [Entry]; let source: String?; let width: Int?; let height: Int?; let sequence: String?
        let numFaces: Int?
    }

    static let landmarkTolerance: Float = 0.002
    static let exactTolerance: Float = 1e-6
    static let blendshapeTolerance: Float = 1e-5
    /// Relative to the entry's size, at least 1 (the translation is in centimetres, up to about 100).
    static let matrixTolerance: Float = 2e-4

    static func fixture(_ name: String) throws -> Fixture {
        try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: URL(
            fileURLWithPath: Paths.fixtures + "/face_landmarks/" + name)))
    }

    static func landmarker(numFaces: Int, mode: RunningMode = .image, blendshapes: Bool = false,
                           matrices: Bool = false) throws -> FaceLandmarker {
        let o = FaceLandmarkerOptions()
        o.baseOptions.modelAssetPath = try Paths.model("face_landmarker.task")
        o.numFaces = numFaces
        o.runningMode = mode
        o.outputFaceBlendshapes = blendshapes
        o.outputFacialTransformationMatrixes = matrices
        return try FaceLandmarker(options: o)
    }

    struct Stats: CustomStringConvertible {
        var faces = 0, frames = 0
        var landmark: Float = 0, landmarkSum: Double = 0, landmarkCount = 0
        var blendshape: Float = 0, matrix: Float = 0, matrixRotation: Float = 0
        var description: String {
            String(format: "%d faces in %d frames: landmark max %.2g mean %.2g, blendshape max %.2g, matrix max %.2g "
                           + "(rotation part %.2g)", faces, frames, landmark,
                   landmarkCount > 0 ? landmarkSum / Double(landmarkCount) : 0, blendshape, matrix, matrixRotation)
        }
    }

    /// Compares faces (stored-pixel coordinates) with the reference, matched by the nose tip (landmark 1).
    static func compare(_ ours: [FacePipeline.Face], _ ref: [Face], stats: inout Stats, _ what: String) {
        stats.frames += 1
        XCTAssertEqual(ours.count, ref.count, "\(what): number of faces")
        guard ours.count == ref.count else { return }
        var used = Set<Int>()
        for (ri, r) in ref.enumerated() {
            func distance(_ k: Int) -> Float {
                abs(ours[k].landmarks[1].x - r.landmarks[3]) + abs(ours[k].landmarks[1].y - r.landmarks[4])
            }
            guard let i = ours.indices.filter({ !used.contains($0) }).min(by: { distance($0) < distance($1) })
            else { continue }
            used.insert(i)
            let f = ours[i]
            XCTAssertEqual(f.landmarks.count * 3, r.landmarks.count, "\(what) face \(ri): landmark count")
            var worst: Float = 0
            for (k, lm) in f.landmarks.enumerated() where 3 * k + 2 < r.landmarks.count {
                let e = max(abs(lm.x - r.landmarks[3 * k]), abs(lm.y - r.landmarks[3 * k + 1]),
                            abs(lm.z - r.landmarks[3 * k + 2]))
                worst = max(worst, e)
                stats.landmarkSum += Double(e); stats.landmarkCount += 1
            }
            stats.landmark = max(stats.landmark, worst)
            XCTAssertLessThanOrEqual(worst, landmarkTolerance, "\(what) face \(ri): landmark error")
            if let rb = r.blendshapes, let b = f.blendshapes {
                XCTAssertEqual(b.count, rb.count, "\(what) face \(ri): blendshape count")
                let e = zip(b, rb).map { abs($0 - $1) }.max() ?? 0
                stats.blendshape = max(stats.blendshape, e)
                XCTAssertLessThanOrEqual(e, blendshapeTolerance, "\(what) face \(ri): blendshape error")
            }
            if let rm = r.matrix, let m = f.matrix {
                let e = zip(m, rm).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
                let rotation = [0, 1, 2, 4, 5, 6, 8, 9, 10].map { abs(m[$0] - rm[$0]) }.max() ?? 0
                stats.matrix = max(stats.matrix, e)
                stats.matrixRotation = max(stats.matrixRotation, rotation)
                XCTAssertLessThanOrEqual(e, matrixTolerance, "\(what) face \(ri): matrix error")
            }
            stats.faces += 1
        }
    }

    static func assertExact(_ stats: Stats, _ what: String) {
        guard EngineArithmetic.matchesX86XNNPACK else { return }
        XCTAssertLessThanOrEqual(stats.landmark, exactTolerance, "\(what): landmarks equal MediaPipe's printed digits")
    }

    func testImagesUprightAndTurned() throws {
        let fx = try Self.fixture("image_faces.json")
        let landmarker = try Self.landmarker(numFaces: 3, blendshapes: true,
                                             matrices: true)
        var byRotation: [Int: Stats] = [:]
        for e in fx.results {
            guard let file = e.file else { continue }
            let rotation = e.rotation ?? 0
            let image = try TestImages.load(Paths.images + "/" + file, orientation: orientation(forRotation: rotation))
            Self.compare(try landmarker.faces(image), e.faces, stats: &byRotation[rotation, default: Stats()],
                         "\(file) at \(rotation)")
        }
        for (rotation, stats) in byRotation.sorted(by: { $0.key < $1.key }) {
            print("FaceLandmarker images at \(rotation) degrees: \(stats)")
            Self.assertExact(stats, "images at \(rotation)")
        }
    }

    /// A frame of a virtual-camera sequence: nearest-neighbour resampling of the source photo through the
    /// fixture's affine map, in the script's arithmetic (double, floor, clamped).
    static func syntheticFrame(_ source: MPImage, affine m: [Double], width: Int, height: Int) throws -> MPImage {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let bpp = source.pixelFormat.bytesPerPixel
        let (ro, go, bo) = source.pixelFormat.rgbOffsets
        source.withBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<height {
                for x in 0..<width {
                    let fx = Double(x), fy = Double(y)
                    let sx = min(max(Int((m[0] * fx + m[1] * fy + m[2]).rounded(.down)), 0), source.pixelWidth - 1)
                    let sy = min(max(Int((m[3] * fx + m[4] * fy + m[5]).rounded(.down)), 0), source.pixelHeight - 1)
                    let p = base + sy * source.bytesPerRow + sx * bpp
                    let o = (y * width + x) * 3
                    out[o] = p[ro]; out[o + 1] = p[go]; out[o + 2] = p[bo]
                }
            }
        }
        return try MPImage(pixels: out, width: width, height: height, pixelFormat: .rgb8)
    }

    func runSynthetic(_ name: String) throws {
        let fx = try Self.fixture("video_synthetic_\(name).json")
        guard let source = fx.source, let w = fx.width, let h = fx.height else { return XCTFail("fixture fields") }
        let photo = try TestImages.load(Paths.images + "/" + source)
        let landmarker = try Self.landmarker(numFaces: fx.numFaces ?? 1, mode: .video,
                                             blendshapes: true,
                                             matrices: true)
        var stats = Stats()
        for (i, e) in fx.results.enumerated() {
            guard let m = e.affine, m.count == 6 else { return XCTFail("frame \(i): no affine map") }
            let frame = try Self.syntheticFrame(photo, affine: m, width: w, height: h)
            Self.compare(try landmarker.faces(frame, timestamp: e.timestampMs ?? i * 33), e.faces, stats: &stats,
                         "\(name) frame \(i)")
        }
        print("FaceLandmarker synthetic \(name): \(stats); face detection ran on \(landmarker.faceDetectionCount) "
              + "of \(fx.results.count) frames")
        XCTAssertEqual(landmarker.faceDetectionCount, 1, "\(name): the face is tracked after the first frame")
        Self.assertExact(stats, name)
    }

    func testVideoSyntheticPan() throws { try runSynthetic("pan") }
    func testVideoSyntheticRoll() throws { try runSynthetic("roll") }
    func testVideoSyntheticZoom() throws { try runSynthetic("zoom") }
    /// Two faces, numFaces 2: both tracked from the first frame on, not smoothed.
    func testVideoSyntheticTwoFaces() throws { try runSynthetic("two") }

    func testVideoPoseDance() throws {
        let fx = try Self.fixture("video_pose_dance_1.json")
        let landmarker = try Self.landmarker(numFaces: 1, mode: .video)
        var stats = Stats()
        for (i, e) in fx.results.enumerated() {
            guard let file = e.file else { continue }
            let image = try TestImages.load(Paths.sequences + "/pose_dance_1/" + file)
            Self.compare(try landmarker.faces(image, timestamp: e.timestampMs ?? i * 33), e.faces, stats: &stats,
                         "pose_dance_1 \(file)")
        }
        XCTAssertEqual(stats.frames, fx.results.count)
    }
}
