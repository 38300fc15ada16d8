import TasksVisionFormat

// libFuzzer target: the TFLITE_METADATA flatbuffer and the zip of associated files a
// model carries after its flatbuffer (both read from the same bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? ModelMetadata(bytes: bytes, name: "fuzz metadata")
    if let zip = try? ZipArchive(view: ByteView(bytes: bytes, name: "fuzz.zip"), allowMissing: true) {
        for entry in zip.entries { _ = try? zip.data(of: entry) }
    }
    return 0
}
