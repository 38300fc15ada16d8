@testable import TasksVision

// libFuzzer target: the hand-written protobuf reader of the face geometry pipeline's metadata
// (geometry_pipeline_metadata_landmarks.binarypb), then, when a file reads, the pipeline on a fixed face.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeometryMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let pipeline = try? FaceGeometryPipeline(metadata: bytes) {
        var face: [NormalizedLandmark] = []
        for i in 0..<478 {
            let x: Float = 0.3 + 0.4 * Float(i % 23) / 23, y: Float = 0.3 + 0.4 * Float(i % 19) / 19
            face.append(NormalizedLandmark(x: x, y: y, z: 0.01 * Float(i % 7)))
        }
        _ = pipeline.transformationMatrix(landmarks: face, imageWidth: 640, imageHeight: 480)
    }
    return 0
}
