import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Blocking HTTP GETs for `vision models fetch`, with errors that say what failed in one line.
enum HTTPClient {
    /// A download that failed: the URL and why ("cannot reach pypi.org (offline?)", "HTTP 404").
    struct Failure: Error, CustomStringConvertible {
        let url: String
        let reason: String
        var description: String { "\(url): \(reason)" }
    }

    private final class Outcome: @unchecked Sendable {
        var data: Data?
        var error: Error?
        var status = 0
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 1800
        return URLSession(configuration: configuration)
    }()

    /// The body of a GET, which must answer 200.
    static func get(_ url: URL) throws -> Data {
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: url) { data, response, error in
            outcome.data = data
            outcome.error = error
            outcome.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }
        task.resume()
        done.wait()
        try check(outcome, url)
        return outcome.data ?? Data()
    }

    /// Downloads a GET's body (which must answer 200) into the file `path`, replacing it.
    static func download(_ url: URL, to path: String) throws {
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let task = session.downloadTask(with: url) { location, response, error in
            outcome.error = error
            outcome.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            // The downloaded file is removed when this handler returns: move it now.
            if error == nil, outcome.status == 200, let location {
                do {
                    try? FileManager.default.removeItem(atPath: path)
                    try FileManager.default.moveItem(at: location, to: URL(fileURLWithPath: path))
                } catch {
                    outcome.error = error
                }
            }
            done.signal()
        }
        task.resume()
        done.wait()
        try check(outcome, url)
    }

    private static func check(_ outcome: Outcome, _ url: URL) throws {
        let host = url.host ?? url.absoluteString
        if let error = outcome.error as? URLError {
            switch error.code {
            case .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed,
                 .networkConnectionLost, .timedOut, .internationalRoamingOff, .dataNotAllowed:
                throw Failure(url: url.absoluteString, reason: "cannot reach \(host) (offline?)")
            default:
                throw Failure(url: url.absoluteString, reason: "download failed (URL error \(error.code.rawValue))")
            }
        }
        if let error = outcome.error {
            throw Failure(url: url.absoluteString, reason: "download failed: \(error.localizedDescription)")
        }
        guard outcome.status == 200 else {
            throw Failure(url: url.absoluteString, reason: "the server answered HTTP \(outcome.status)")
        }
    }
}
