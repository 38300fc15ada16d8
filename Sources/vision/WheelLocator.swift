import Foundation
import TasksVisionFormat

/// Finds the mediapipe wheel `vision models fetch` unpacks models from: a `--wheel` file, a
/// copy in the download cache, or a download from PyPI (kept in the cache for next time).
///
/// The wheel tools/fetch_models.py uses (same file name) must have its WHEEL_SHA256; a download
/// must have the SHA-256 PyPI lists; any other wheel is trusted only through the checksums of
/// the models taken from it.
struct WheelLocator {
    /// Why no wheel could be had, in one line.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let wheel: ModelCatalog.Wheel
    /// The wheel file given with `--wheel`, if any.
    let explicitFile: String?
    /// `$XDG_CACHE_HOME/tasksvision` (or its platform default).
    let cacheFolder: String
    let log: (String) -> Void

    var pyPI = "https://pypi.org/pypi"

    /// The file name of this platform's wheel.
    var fileName: String { wheel.fileName(tag: ModelCatalog.Wheel.platformTag) }

    /// The path of a usable wheel file, downloading it if needed.
    func wheelFile() throws -> String {
        if let explicitFile {
            guard FileManager.default.fileExists(atPath: explicitFile) else {
                throw Failure(description: "--wheel \(explicitFile): no such file")
            }
            try checkScriptWheel(explicitFile)
            return explicitFile
        }
        let cached = cacheFolder + "/" + fileName
        if FileManager.default.fileExists(atPath: cached) {
            do {
                try checkScriptWheel(cached)
                return cached
            } catch {
                log("\(cached) has an unexpected sha256; downloading it again")
                try? FileManager.default.removeItem(atPath: cached)
            }
        }
        return try download()
    }

    /// The wheel file tools/fetch_models.py downloads must have WHEEL_SHA256.
    private func checkScriptWheel(_ path: String) throws {
        guard PathText.lastComponent(path) == wheel.fileName(tag: wheel.scriptTag) else { return }
        let digest = try SHA256.hexDigest(ofFile: path)
        guard digest == wheel.scriptSHA256 else {
            throw Failure(description: "\(path): sha256 \(digest), expected \(wheel.scriptSHA256)")
        }
    }

    /// Looks the wheel up in PyPI's JSON API and downloads it into the cache.
    private func download() throws -> String {
        let (url, digest, size) = try release()
        var folder = cacheFolder
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            folder = NSTemporaryDirectory()
            log("cannot create the cache folder \(cacheFolder); downloading into \(folder)")
        }
        let path = folder + "/" + fileName
        let partial = path + ".partial"
        let megabytes = size.map { String(format: " (%.1f MB)", Double($0) / 1e6) } ?? ""
        log("downloading \(fileName)\(megabytes) from \(url.host ?? url.absoluteString)")
        do {
            try HTTPClient.download(url, to: partial)
        } catch let failure as HTTPClient.Failure {
            throw Failure(description: "cannot download the \(wheel.project) wheel: \(failure); "
                          + "pass --wheel FILE with \(fileName) if you have it")
        }
        let actual = try SHA256.hexDigest(ofFile: partial)
        let expected = fileName == wheel.fileName(tag: wheel.scriptTag) ? wheel.scriptSHA256 : digest
        if let expected, actual != expected {
            try? FileManager.default.removeItem(atPath: partial)
            throw Failure(description: "the downloaded \(fileName) has sha256 \(actual), expected \(expected)")
        }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return path
    }

    /// The download URL, SHA-256 and size PyPI lists for the wheel: from the release's JSON,
    /// or else from the project's (some mirrors serve only the latter).
    private func release() throws -> (url: URL, sha256: String?, size: Int?) {
        let endpoints = ["\(pyPI)/\(wheel.project)/\(wheel.version)/json", "\(pyPI)/\(wheel.project)/json"]
        var problems: [String] = []
        for endpoint in endpoints {
            guard let api = URL(string: endpoint) else { continue }
            let data: Data
            do {
                data = try HTTPClient.get(api)
            } catch let failure as HTTPClient.Failure {
                problems.append(failure.description)
                if failure.reason.hasPrefix("cannot reach") { break }
                continue
            }
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            // A release's JSON lists its files under "urls"; the project's, under "releases".
            let files: [[String: Any]]
            if endpoint == endpoints[0] {
                files = json?["urls"] as? [[String: Any]] ?? []
            } else {
                files = (json?["releases"] as? [String: Any])?[wheel.version] as? [[String: Any]] ?? []
            }
            guard let file = files.first(where: { $0["filename"] as? String == fileName }) else {
                problems.append("\(endpoint) lists no \(fileName)")
                continue
            }
            guard let link = file["url"] as? String, let url = URL(string: link, relativeTo: api)?.absoluteURL else {
                problems.append("\(endpoint) gives no URL for \(fileName)")
                continue
            }
            let digest = (file["digests"] as? [String: Any])?["sha256"] as? String
            return (url, digest, file["size"] as? Int)
        }
        throw Failure(description: "cannot find the \(wheel.project) \(wheel.version) wheel: "
                      + problems.joined(separator: "; ") + "; pass --wheel FILE with \(fileName) if you have it")
    }
}
