import TasksVisionFormat

/// `custom_gesture_classifier.tflite` as Model Maker exports it (the TFLite converter's output
/// for the Keras head, then its metadata writer): float32, each BatchNormalization folded into
/// MUL and ADD with a fused ReLU, then FULLY_CONNECTED (and SOFTMAX after the last); input
/// `[1, 128]`, output `[1, classes]`; metadata naming the input `embedding` and the output
/// `scores` with a 0.5 score threshold and `labels.txt` zipped after the flatbuffer.
extension GestureClassifier {
    /// The score threshold Model Maker writes into the metadata (MediaPipe applies it to the
    /// custom classifier unless the caller sets one).
    public static let scoreThreshold: Float = 0.5

    /// The converter's `min_runtime_version` buffer for these operators: "1.5.0", zero-padded to 16 bytes.
    static let minRuntimeVersion: [UInt8] = Array("1.5.0".utf8) + [UInt8](repeating: 0, count: 11)

    /// The metadata Model Maker's `MetadataWriter` gives a gesture classifier with these labels.
    public static func metadata() -> ModelMetadata {
        let labels = ModelMetadata.AssociatedFile(name: "labels.txt",
                                                  description: "Labels for categories that the model can recognize.",
                                                  type: .tensorAxisLabels)
        let input = ModelMetadata.TensorMetadata(name: "embedding",
                                                 description: "Embedding feature vector from gesture embedder.",
                                                 content: .feature)
        let output = ModelMetadata.TensorMetadata(name: "scores", description: "Hand gesture category scores.",
                                                  associatedFiles: [labels], statsMin: [0], statsMax: [1],
                                                  content: .feature, scoreThreshold: scoreThreshold)
        return ModelMetadata(name: "HandGestureRecognition", description: "Recognize the hand gesture in the image.",
                             subgraphs: [.init(inputs: [input], outputs: [output])], minParserVersion: "1.0.0")
    }

    /// The model's writer description (graph, weights rounded to float32, metadata, labels).
    public func classifierModelWriter() throws -> TFLiteModelWriter {
        var tensors: [TFLiteModelWriter.Tensor] = [
            .init(name: "serving_default_hand_embedding:0", shape: [1, head.inputSize]),
        ]
        var ops: [TFLiteModelWriter.Operator] = []
        var current = 0
        for (b, block) in head.blocks.enumerated() {
            let bn = "model/batch_normalization_\(b)/batchnorm", dense = "model/custom_gesture_recognizer_\(b)"
            let (scale, offset) = block.foldedBatchNorm()
            let base = tensors.count
            // TFLite's FULLY_CONNECTED weights are [outputs, inputs]; Keras's kernel is [inputs, outputs].
            var weights: [Float] = []
            for k in 0..<block.outputs {
                for j in 0..<block.inputs { weights.append(Float(block.kernel[j * block.outputs + k])) }
            }
            let bnScale = TFLiteModelWriter.Tensor(name: bn + "/mul", shape: [block.inputs],
                                                   floats: scale.map(Float.init))
            let bnOffset = TFLiteModelWriter.Tensor(name: bn + "/sub", shape: [block.inputs],
                                                    floats: offset.map(Float.init))
            let kernel = TFLiteModelWriter.Tensor(name: dense + "/MatMul", shape: [block.outputs, block.inputs],
                                                  floats: weights)
            let bias = TFLiteModelWriter.Tensor(name: dense + "/BiasAdd/ReadVariableOp", shape: [block.outputs],
                                                floats: block.bias.map(Float.init))
            let scaled = TFLiteModelWriter.Tensor(name: bn + "/mul_1", shape: [1, block.inputs])
            let activated = TFLiteModelWriter.Tensor(name: "model/re_lu_\(b)/Relu;\(bn)/add_1",
                                                     shape: [1, block.inputs])
            let logits = TFLiteModelWriter.Tensor(name: "\(dense)/MatMul;\(dense)/BiasAdd", shape: [1, block.outputs])
            tensors += [bnScale, bnOffset, kernel, bias, scaled, activated, logits]
            let fullyConnected = OperatorOptions.FullyConnected(activation: .none, weightsFormat: 0, keepNumDims: false)
            let mul = TFLiteModelWriter.Operator(.mul, inputs: [current, base], outputs: [base + 4],
                                                 options: .activation(.none))
            let add = TFLiteModelWriter.Operator(.add, inputs: [base + 4, base + 1], outputs: [base + 5],
                                                 options: .activation(.relu))
            let fc = TFLiteModelWriter.Operator(.fullyConnected, inputs: [base + 5, base + 2, base + 3],
                                                outputs: [base + 6], options: .fullyConnected(fullyConnected))
            ops += [mul, add, fc]
            current = base + 6
        }
        tensors.append(.init(name: "StatefulPartitionedCall:0", shape: [1, head.classes]))
        ops.append(.init(.softmax, inputs: [current], outputs: [tensors.count - 1], options: .softmax(beta: 1)))
        let graph = TFLiteModelWriter.Subgraph(name: "main", tensors: tensors, inputs: [0],
                                               outputs: [tensors.count - 1], operators: ops)
        return TFLiteModelWriter(description: "MLIR Converted.", subgraphs: [graph],
                                 metadata: [("min_runtime_version", Self.minRuntimeVersion),
                                            ("TFLITE_METADATA", try Self.metadata().serialized())],
                                 associatedFiles: [("labels.txt", Array(labels.joined(separator: "\n").utf8))])
    }

    /// The `custom_gesture_classifier.tflite` bytes.
    public func classifierModel() throws -> [UInt8] {
        guard labels.count == head.classes else {
            throw TrainingError.invalidOption("\(labels.count) labels for a head of \(head.classes) classes")
        }
        if let bad = labels.first(where: { $0.isEmpty || $0.contains(where: \.isNewline) }) {
            throw TrainingError.invalidOption("label '\(bad)' cannot be written to labels.txt (empty or with a line "
                                              + "break)")
        }
        return try classifierModelWriter().serialized()
    }
}
