import Foundation
import TasksVisionFormat
import TasksVisionImageIO

/// Installs every model of `ModelCatalog` into a folder, as tools/fetch_models.py fills Models/:
/// wheel models unpacked from the mediapipe wheel, shared models copied from the shared folder
/// (or downloaded from their official URL), `.task` bundles assembled with MediaPipe's layout.
/// Every file is checked against its manifest checksum before it is written; files already
/// there with the right checksum are left alone, and a verified copy in another model folder
/// is used before anything is unpacked or downloaded.
struct ModelFetcher {
    /// The whole fetch failed, or some models could not be installed (each reported before).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What a fetch did.
    struct Report {
        var present = 0
        var installed = 0
        var failed: [String] = []
    }

    let destination: String
    /// Other model folders, where a file with the right checksum is simply copied.
    let copyFolders: [String]
    /// Folders holding the shared models, in order.
    let sharedFolders: [String]
    let wheelLocator: WheelLocator
    /// Progress lines and problem lines.
    let log: (String) -> Void
    let warn: (String) -> Void

    /// The wheel, opened once, or why it could not be had.
    private final class WheelState {
        var archive: ZipArchive?
        var failure: String?
        var reported = false
    }

    func run() throws -> Report {
        do {
            try OutputPath.makeFolder(destination)
        } catch {
            throw Failure(description: "cannot create the model folder \(destination): \(error.localizedDescription)")
        }
        var report = Report()
        let wheel = WheelState()
        for model in ModelCatalog.models {
            let path = destination + "/" + model.name
            let digest = try? SHA256.hexDigest(ofFile: path)
            if digest == model.sha256 {
                report.present += 1
                continue
            }
            if let digest, model.accepted.contains(digest) {
                // An assembled fallback: replaced by the official bundle when it can be had, else kept.
                if case let .officialBundle(url, _) = model.source,
                   let (bytes, origin) = try? copyShared(model, officialURL: url) {
                    do {
                        try write(bytes, to: path)
                        log("\(model.name): \(origin), in place of the assembled bundle")
                        report.installed += 1
                        continue
                    } catch {}
                }
                report.present += 1
                continue
            }
            do {
                let (bytes, origin) = try obtain(model, wheel: wheel)
                try write(bytes, to: path)
                log("\(model.name): \(origin)")
                report.installed += 1
            } catch {
                warn("\(model.name): \(error)")
                report.failed.append(model.name)
            }
        }
        return report
    }

    /// The model's bytes, checked, and where they came from.
    private func obtain(_ model: ModelCatalog.Model, wheel: WheelState) throws -> ([UInt8], String) {
        for folder in copyFolders {
            let path = folder + "/" + model.name
            if FileManager.default.fileExists(atPath: path), let bytes = try? ModelAsset.readFile(path),
               model.accepted.contains(SHA256.hexDigest(of: bytes)) {
                return (bytes, "copied from \(folder)")
            }
        }
        switch model.source {
        case .wheel(let member): return try unpack(model, member: member, wheel: wheel)
        case .shared(let url): return try copyShared(model, officialURL: url)
        case .bundle(let members): return try assemble(model, members: members)
        case let .officialBundle(url, members):
            do {
                return try copyShared(model, officialURL: url)
            } catch {
                // The same weights assembled: MediaPipe gives the same results with either file.
                log("\(model.name): the official bundle could not be had (\(error)); assembling it")
                return try assemble(model, members: members)
            }
        }
    }

    private func unpack(_ model: ModelCatalog.Model, member: String, wheel: WheelState) throws -> ([UInt8], String) {
        if wheel.archive == nil && wheel.failure == nil {
            do {
                let file = try wheelLocator.wheelFile()
                let view = ByteView(bytes: try ModelAsset.readFile(file), name: file)
                guard let archive = try ZipArchive(view: view, allowMissing: false) else {
                    throw Failure(description: "\(file) is not a zip archive")
                }
                wheel.archive = archive
            } catch {
                wheel.failure = "\(error)"
            }
        }
        guard let archive = wheel.archive else {
            if wheel.reported {
                throw Failure(description: "needs the \(ModelCatalog.wheel.project) wheel (see above)")
            }
            wheel.reported = true
            throw Failure(description: wheel.failure ?? "no wheel")
        }
        guard let entry = archive.entry(named: member) else {
            throw Failure(description: "\(archive.view.name) has no member \(member)")
        }
        let bytes = try archive.decompressedData(of: entry)
        try check(bytes, model, what: "\(member) in \(archive.view.name)")
        return (bytes, "unpacked from \(PathText.lastComponent(archive.view.name))")
    }

    private func copyShared(_ model: ModelCatalog.Model, officialURL: String?) throws -> ([UInt8], String) {
        var problems: [String] = []
        for folder in sharedFolders {
            let path = folder + "/" + model.name
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                let bytes = try ModelAsset.readFile(path)
                try check(bytes, model, what: path)
                return (bytes, "copied from \(folder)")
            } catch {
                problems.append("\(error)")
            }
        }
        if let officialURL, let url = URL(string: officialURL) {
            do {
                let bytes = [UInt8](try HTTPClient.get(url))
                try check(bytes, model, what: "the download from \(officialURL)")
                return (bytes, "downloaded from \(url.host ?? officialURL)")
            } catch {
                problems.append("\(error)")
            }
        }
        let folders = sharedFolders.isEmpty ? "no shared folder" : sharedFolders.joined(separator: ", ")
        var reason = "not found in \(folders)"
        if !problems.isEmpty { reason = problems.joined(separator: "; ") }
        throw Failure(description: reason + " (set TASKSVISION_SHARED or pass --shared DIR)")
    }

    private func assemble(_ model: ModelCatalog.Model, members: [(String, String)]) throws -> ([UInt8], String) {
        let bytes = try assembledBytes(members)
        try check(bytes, model, what: "the assembled bundle", against: model.fallbackSHA256 ?? model.sha256)
        return (bytes, "assembled from " + members.map { $0.1 }.joined(separator: ", "))
    }

    /// A bundle of `members`, each read from the destination, or assembled itself when it is a bundle (never the
    /// official file), so an assembled bundle's bytes do not depend on which variant of a member is installed.
    private func assembledBytes(_ members: [(String, String)]) throws -> [UInt8] {
        var contents: [(name: String, data: [UInt8])] = []
        for (member, source) in members {
            if let nested = ModelCatalog.model(named: source)?.source.members {
                contents.append((member, try assembledBytes(nested)))
                continue
            }
            let path = destination + "/" + source
            guard let bytes = try? ModelAsset.readFile(path),
                  ModelCatalog.model(named: source).map({ $0.accepted.contains(SHA256.hexDigest(of: bytes)) }) ?? true
            else {
                throw Failure(description: "needs \(source), which is missing or has the wrong checksum"
                              + " in \(destination)")
            }
            contents.append((member, bytes))
        }
        return try ZipWriter.storedArchive(contents)
    }

    private func check(_ bytes: [UInt8], _ model: ModelCatalog.Model, what: String, against expected: String? = nil)
        throws {
        let digest = SHA256.hexDigest(of: bytes)
        let expected = expected ?? model.sha256
        guard digest == expected else {
            throw Failure(description: "\(what) has sha256 \(digest), expected \(expected)")
        }
    }

    /// Writes through a temporary file renamed into place, so a file is never half there.
    private func write(_ bytes: [UInt8], to path: String) throws {
        // The output policy: a folder or device in the model's place is refused, a link followed.
        do {
            try OutputFile.write(bytes, to: try OutputPath.file(path, option: nil))
        } catch {
            throw Failure(description: "\(error)")
        }
    }
}
