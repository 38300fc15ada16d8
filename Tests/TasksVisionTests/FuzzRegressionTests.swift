import Foundation
import TasksVisionEngine
import TasksVisionFormat
import TasksVisionImageIO
import XCTest

/// Replays the inputs the fuzz targets in tools/fuzz found (Tests/Fixtures/fuzz/<target>/):
/// each must now end in a value or a typed error, through the same calls as its target.
/// Inputs mutated from a model are stored as patches against it (tools/fuzz_regression.py).
final class FuzzRegressionTests: XCTestCase {
    func testTFLiteModelFindings() throws {
        let all = try findings("FuzzTFLiteModel")
        XCTAssertFalse(all.isEmpty, "the operator-without-outputs finding is committed")
        for (name, bytes) in all {
            do {
                let model = try TFLiteModel(bytes: bytes, name: name)
                _ = try? model.metadata()
                _ = try? model.associatedFiles()
                _ = try Interpreter(model: model)
            } catch {
                XCTAssertFalse("\(error)".isEmpty, name)
            }
        }
    }

    func testModelMetadataFindings() throws {
        for (name, bytes) in try findings("FuzzModelMetadata") {
            _ = try? ModelMetadata(bytes: bytes, name: name)
            if let zip = try? ZipArchive(view: ByteView(bytes: bytes, name: name), allowMissing: true) {
                for entry in zip.entries { _ = try? zip.data(of: entry) }
            }
        }
    }

    func testTaskBundleFindings() throws {
        for (name, bytes) in try findings("FuzzTaskBundle") {
            guard let bundle = try? TaskBundle(bytes: bytes, name: name) else { continue }
            for member in bundle.memberNames {
                if let nested = try? bundle.bundle(member) { _ = nested.memberNames.map { try? nested.member($0) } }
                _ = try? bundle.model(member)
            }
        }
    }

    func testImageFileFindings() throws {
        for (name, bytes) in try findings("FuzzImageFile") {
            if let image = try? ImageFile.decode(bytes, name: name) {
                XCTAssertEqual(image.pixels.count, image.width * image.height * image.channels, name)
            }
        }
    }

    /// The regression inputs of one target, raw files and patches rebuilt against Models/.
    private func findings(_ target: String) throws -> [(String, [UInt8])] {
        let dir = Paths.fixtures + "/fuzz/" + target
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        var out: [(String, [UInt8])] = []
        for name in names.sorted() {
            let path = dir + "/" + name
            if name.hasSuffix(".patch.json") {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let patch = try JSONDecoder().decode(Patch.self, from: data)
                var bytes = try ModelAsset.readFile(try Paths.model(patch.base))
                bytes = Array(bytes.prefix(patch.length))
                    + [UInt8](repeating: 0, count: max(0, patch.length - bytes.count))
                for edit in patch.edits where edit.count == 2 && edit[0] < bytes.count {
                    bytes[edit[0]] = UInt8(truncatingIfNeeded: edit[1])
                }
                out.append((name, bytes))
            } else {
                out.append((name, try ModelAsset.readFile(path)))
            }
        }
        return out
    }

    private struct Patch: Decodable {
        let base: String
        let length: Int
        let edits: [[Int]]
    }
}
