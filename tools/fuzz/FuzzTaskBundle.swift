import TasksVisionFormat

// libFuzzer target: a .task bundle, walked like the tasks walk it: every member read,
// nested bundles opened (two levels, as gesture_recognizer.task has), models parsed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTaskBundle(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    walk(try? TaskBundle(bytes: bytes, name: "fuzz.task"), depth: 0)
    return 0
}

private func walk(_ bundle: TaskBundle?, depth: Int) {
    guard let bundle, depth < 3 else { return }
    for member in bundle.memberNames {
        if member.hasSuffix(".task") {
            walk(try? bundle.bundle(member), depth: depth + 1)
        } else if let model = try? bundle.model(member) {
            _ = try? model.metadata()
        }
    }
}
