import TasksVisionFormat

/// MediaPipe's `ClassificationPostprocessingGraph` (mediapipe/tasks/cc/components/processors/
/// classification_postprocessing_graph.cc) as `ConfigureClassificationPostprocessingGraph` sets it up from the
/// classifier options and the model's metadata: per output tensor (head), score calibration when the tensor's
/// metadata has it (`ScoreCalibration`), then `TensorsToClassification` with the label map, the metadata's or the
/// options' score threshold, the allow or deny list as label indices and `max_results`; the heads gathered with
/// their indices and metadata names (`ClassificationAggregationCalculator`).
struct ClassificationHeads {
    struct Head {
        var options: TensorsToClassification.Options
        var calibration: ScoreCalibration?
        /// The tensor's element count (`num_classes`).
        var count: Int
    }

    var heads: [Head]
    /// The heads' names (the output tensors' metadata names); empty without output metadata.
    var names: [String]

    /// The classifier's choices, as `proto::ClassifierOptions` carries them.
    struct Choices {
        var displayNamesLocale: String?
        var maxResults: Int
        /// Always set by MediaPipe Tasks iOS (overriding the metadata's threshold); nil uses the metadata's.
        var scoreThreshold: Float?
        var allowlist: [String]
        var denylist: [String]
    }

    /// `kDefaultScoreThreshold`.
    static let defaultScoreThreshold = -Float.greatestFiniteMagnitude

    /// `ConfigureClassificationPostprocessingGraph`: checks the options (`SanityCheckClassifierOptions`) and reads
    /// each head's configuration; throws MediaPipe's texts (model problems prefixed with the file's name).
    init(_ choices: Choices, stage: ImageModelStage) throws {
        if choices.maxResults == 0 {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.maxResultsZero)
        }
        if !choices.allowlist.isEmpty && !choices.denylist.isEmpty {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.allowAndDenyLists)
        }
        let name = stage.name
        let meta = stage.outputMetadata
        var heads: [Head] = []
        for (i, output) in stage.outputs.enumerated() {
            let tensor = i < meta.count ? meta[i] : nil
            var options = TensorsToClassification.Options()
            options.labels = try LabelMap.of(tensor, files: stage.associatedFiles,
                                             locale: choices.displayNamesLocale, model: name)
            options.minScoreThreshold = tensor?.scoreThreshold ?? Self.defaultScoreThreshold
            let list = choices.allowlist.isEmpty ? choices.denylist : choices.allowlist
            if !list.isEmpty {
                guard let labels = options.labels?.names, !labels.isEmpty else {
                    throw VisionTaskError.invalidOption(MediaPipeErrorText.listsWithoutLabels + " (\(name))")
                }
                // The first label of each name; unknown and repeated names ignored.
                options.classIndices = Set(list.compactMap { labels.firstIndex(of: $0) })
                options.isAllowlist = !choices.allowlist.isEmpty
            }
            if let threshold = choices.scoreThreshold { options.minScoreThreshold = threshold }
            options.topK = choices.maxResults > 0 ? choices.maxResults : -1
            if let labels = options.labels, labels.names.count != output.count {
                // TensorsToClassificationCalculator's RET_CHECK, which MediaPipe meets on the first image.
                throw VisionTaskError.invalidModel("\(name): output \(i) has \(output.count) scores but its labels "
                                                   + "file has \(labels.names.count) labels")
            }
            var calibration: ScoreCalibration?
            if let c = tensor?.scoreCalibration {
                guard let file = tensor?.associatedFiles.first(where: { $0.type == .tensorAxisScoreCalibration }) else {
                    throw VisionTaskError.invalidModel("\(name): NOT_FOUND: Found ScoreCalibrationOptions but missing "
                                                       + "required associated parameters file with type "
                                                       + "TENSOR_AXIS_SCORE_CALIBRATION.")
                }
                guard let data = stage.associatedFiles[file.name] else {
                    throw VisionTaskError.invalidModel("\(name): NOT_FOUND: No associated file with name: "
                                                       + file.name)
                }
                do {
                    let transformation = ScoreCalibration.Transformation(rawValue: c.transformation) ?? .identity
                    calibration = try ScoreCalibration(transformation: transformation, defaultScore: c.defaultScore,
                                                       file: data)
                } catch let f as ScoreCalibration.Failure {
                    throw VisionTaskError.invalidModel("\(name): \(f.text)")
                }
                if let sigmoids = calibration?.sigmoids.count, sigmoids != output.count {
                    // The calculator's check, which MediaPipe meets on the first image.
                    throw VisionTaskError.invalidModel("\(name): INVALID_ARGUMENT: Mismatch between number of sigmoids "
                                                       + "(\(sigmoids)) and number of elements in the input scores "
                                                       + "tensor (\(output.count)).")
                }
            }
            heads.append(Head(options: options, calibration: calibration, count: output.count))
        }
        self.heads = heads
        names = meta.map { $0.name ?? "" }
    }

    /// The classifications of the stage's last run.
    func classifications(_ stage: ImageModelStage) -> [Classifications] {
        heads.enumerated().map { i, head in
            let categories = stage.withOutput(i) { scores -> [ResultCategory] in
                guard let calibration = head.calibration else {
                    return TensorsToClassification.categories(scores, options: head.options)
                }
                var calibrated = Array(scores)
                calibrated.withUnsafeMutableBufferPointer { buffer in
                    for j in buffer.indices { buffer[j] = calibration.calibrated(buffer[j], index: j) }
                }
                return TensorsToClassification.categories(calibrated, options: head.options)
            }
            // MediaPipe Tasks iOS gives "" for a head without a name.
            return Classifications(headIndex: i, headName: i < names.count ? names[i] : "", categories: categories)
        }
    }
}
