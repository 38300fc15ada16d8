import Foundation
import TasksVisionPoseClassification

// libFuzzer target: the pose sample CSV reader (ML Kit's format), then classifying a few of the rows
// read against the samples read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPoseSampleFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file = PoseSampleFile(data: Data(bytes: data, count: size))
    if !file.samples.isEmpty, let classifier = try? PoseClassifier(samples: file.samples) {
        for landmarks in file.landmarks.prefix(4) { _ = try? classifier.classify(landmarks).maxConfidenceClass() }
    }
    return 0
}
