import Foundation
// Placeholder until the locator branch lands.
public enum ModelLocator {
    static func resolveForTask(_ path: String) throws -> String {
        let file = String(path.split(separator: ":").first ?? "")
        if FileManager.default.fileExists(atPath: file) { return path }
        return "Models/" + path
    }
}
