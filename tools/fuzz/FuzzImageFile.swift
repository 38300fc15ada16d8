import TasksVisionImageIO

// libFuzzer target: PNG and JPEG decoding as used by the `vision` command-line tool.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let image = try? ImageFile.decode(bytes, name: "fuzz image") {
        // Touch the pixels so a short buffer would be seen by AddressSanitizer.
        var sum = 0
        for b in image.pixels { sum &+= Int(b) }
        _ = sum
    }
    return 0
}
