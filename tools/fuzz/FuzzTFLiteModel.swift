import TasksVisionEngine
import TasksVisionFormat

// libFuzzer target: a .tflite file, read and planned the way `vision model info` and the
// tasks do (flatbuffer, metadata, appended zip of associated files, engine graph and
// memory plan). Every input must end in a value or a thrown error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTFLiteModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let model = try? TFLiteModel(bytes: bytes, name: "fuzz.tflite") else { return 0 }
    _ = try? model.metadata()
    _ = try? model.associatedFiles()
    _ = try? Interpreter(model: model, options: .init(threads: 1))
    return 0
}
