/// A sample that the other samples do not classify as its own class alone (MediaPipe's pose
/// classification Colab, `find_pose_sample_outliers`, with the sample itself left out).
public struct PoseSampleOutlier: Sendable, Equatable {
    /// The sample's index in the classifier's samples.
    public let index: Int
    /// The sample.
    public let sample: PoseSample
    /// Its k-NN counts against the other samples.
    public let classification: ClassificationResult
    /// The classes of the most votes (more than one on a tie), in ML Kit's class order.
    public let topClasses: [String]
}

extension PoseClassifier {
    /// The samples whose class is not the only class of the most votes when each is classified against
    /// the other samples. `landmarks` are the samples' landmarks, in the same order (as
    /// `PoseSampleFile.landmarks`); throws if their count differs or one does not have 33.
    public func outliers(landmarks: [[PointF3D]]) throws -> [PoseSampleOutlier] {
        guard landmarks.count == samples.count else {
            throw PoseClassificationError.invalidSetting("landmarks", "one list per sample (\(samples.count))")
        }
        var outliers: [PoseSampleOutlier] = []
        for (i, sample) in samples.enumerated() {
            let result = try classify(landmarks[i], excluding: i)
            let most = result.confidences.values.max()
            let top = result.allClasses.filter { result.classConfidence($0) == most }
            if top != [sample.className] {
                outliers.append(PoseSampleOutlier(index: i, sample: sample, classification: result, topClasses: top))
            }
        }
        return outliers
    }
}
