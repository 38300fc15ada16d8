import Foundation
import TasksVisionPoseClassification

/// `vision-bench --task pose-classify`: classifying one pose against ML Kit's 812 samples (k-NN),
/// and a stream frame (k-NN, smoothing and repetition counting), each sample's landmarks in turn.
enum PoseClassifyBenchmark {
    static func run(options: Options) throws {
        let csv = options.image
            ?? (TaskBenchmark.repositoryRoot + "/../shared/testdata/pose_classification/fitness_pose_samples.csv")
        let file = try PoseSampleFile(contentsOfFile: csv)
        let classifier = try PoseClassifier(samples: file.samples)
        let runs = max(options.runs, file.landmarks.count)
        var i = 0
        let classify = try TaskBenchmark.time(runs: runs, warmup: options.warmup) {
            _ = try classifier.classify(file.landmarks[i % file.landmarks.count])
            i += 1
        }
        report("pose-classify", samples: file.samples.count, classify, json: options.json)
        var processor = try PoseClassifierProcessor(classifier: classifier, isStreamMode: true)
        var t: Int64 = 0
        let stream = try TaskBenchmark.time(runs: runs, warmup: options.warmup) {
            t += 33
            _ = try processor.process(landmarks: file.landmarks[i % file.landmarks.count], timestampInMilliseconds: t)
            i += 1
        }
        report("pose-classify-stream", samples: file.samples.count, stream, json: options.json)
    }

    static func report(_ name: String, samples: Int, _ times: [Double], json: Bool) {
        let median = times[times.count / 2]
        if json {
            let object: [String: Any] = ["task": name, "samples": samples, "runs": times.count, "minMs": times[0],
                                         "medianMs": median, "maxMs": times[times.count - 1]]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
        } else {
            print(String(format: "%@ against %d samples: min %.4f ms  median %.4f ms  max %.4f ms", name, samples,
                         times[0], median, times[times.count - 1]))
        }
    }
}
