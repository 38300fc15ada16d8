/// Paths as text, split and joined without Foundation's path functions, which trap on some short paths
/// (`("m" as NSString).deletingLastPathComponent` stops the process with SIGILL). Pure functions of the text that
/// never fail: every path the command line is given goes through these, whatever its spelling.
enum PathText {
    /// The folder part: "a/b" -> "a", "b" -> "", "/b" -> "/", "a/b/" -> "a", "/" -> "/", "" -> "".
    static func parent(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let head = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return head.isEmpty ? "/" : head
    }

    /// The folder part where an empty one means the working folder: "b" -> ".".
    static func folder(_ path: String) -> String {
        let p = parent(path)
        return p.isEmpty ? "." : p
    }

    /// The last component: "a/b" -> "b", "a/b/" -> "b", "/" -> "/", "" -> "".
    static func lastComponent(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The extension of the last component, without its dot: "a/b.PNG" -> "PNG"; "" for ".hidden", "a.", "..".
    static func fileExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The last component without its extension: "c1/a.png" -> "a", ".hidden" -> ".hidden".
    static func stem(_ path: String) -> String {
        let name = lastComponent(path)
        let ext = fileExtension(name)
        return ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
    }

    /// `folder/name`, without doubling a slash.
    static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The path's components, empty ones and "." left out: "./a//b/" -> ["a", "b"].
    static func components(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
    }

    /// Whether the path is written as a folder: it ends in "/" (or is "/", ".", "..").
    static func namesFolder(_ path: String) -> Bool {
        path.hasSuffix("/") || [".", ".."].contains(lastComponent(path))
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var s = Substring(path)
        while s.count > 1 && s.hasSuffix("/") { s = s.dropLast() }
        return String(s)
    }
}
