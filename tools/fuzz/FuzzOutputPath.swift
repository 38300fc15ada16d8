import Foundation
@testable import vision

// libFuzzer target: the output-path policy on any bytes as a path (issue 48: a one-letter path crashed Foundation's
// deletingLastPathComponent). The path is read as the command line reads an argument (NativePath: bytes that are
// not UTF-8 kept); the checks run in a sandbox folder holding a file, a folder, a dangling link and a link loop.
// Nothing may trap; a refusal is an OutputError; a canonical path is absolute.
private let sandbox: String = {
    let dir = NSTemporaryDirectory() + "/fuzz-output-path-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir + "/folder/sub", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: dir + "/file", contents: Data("x".utf8))
    try? FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: "nowhere/x")
    try? FileManager.default.createSymbolicLink(atPath: dir + "/loop", withDestinationPath: "loop")
    _ = FileManager.default.changeCurrentDirectoryPath(dir)
    return dir
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOutputPath(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = sandbox
    // No NUL inside a path (the system would cut it there); one input is one path.
    let bytes = Array(UnsafeBufferPointer(start: data, count: min(size, 4096))).filter { $0 != 0 }
    let path = NativePath.decode(bytes)
    _ = PathText.parent(path); _ = PathText.lastComponent(path); _ = PathText.stem(path)
    _ = PathText.fileExtension(path); _ = PathText.components(path); _ = PathText.namesFolder(path)
    precondition(PathText.parent(path).count <= max(1, path.count))
    precondition(OutputPath.canonical(path).hasPrefix("/"))
    precondition(OutputPath.canonicalEntry(path).hasPrefix("/"))
    _ = OutputPath.kind(path); _ = OutputPath.identity(path)
    do { try OutputPath.folder(path, option: "--masks") } catch is OutputError {} catch {
        preconditionFailure("not an OutputError: \(error)")
    }
    do { _ = try OutputPath.file(path, option: "--out") } catch is OutputError {} catch {
        preconditionFailure("not an OutputError: \(error)")
    }
    _ = try? OverlayPath.kind(path)
    _ = OutputNames.Name.frames(PathText.stem(path)).writes(PathText.lastComponent(path), suffix: "")
    return 0
}
