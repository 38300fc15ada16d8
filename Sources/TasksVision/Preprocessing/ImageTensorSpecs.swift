import TasksVisionFormat

/// What MediaPipe's `BuildInputImageTensorSpecs` (mediapipe/tasks/cc/vision/utils/image_tensor_specs.cc) reads
/// of an image model's input, and the checks it makes, with its error texts: one input, `[1, H, W, 3 or 4]`,
/// uint8 (the pixels as they are) or float32 with `NormalizationOptions` in its metadata, RGB. For a float input
/// `range` is the pixels' mapping (`ConfigureImageToTensorCalculator`: [(0 - mean) / std, (255 - mean) / std]).
struct ImageTensorSpecs: Equatable {
    var width: Int
    var height: Int
    var type: TensorType
    /// The float input's value range; nil for uint8.
    var range: ImageToTensor.ValueRange?

    /// A mistake MediaPipe words itself: its status code's name and its text.
    struct Failure: Error, Equatable {
        let status: String
        let text: String
    }

    static func invalid(_ text: String) -> Failure { Failure(status: "INVALID_ARGUMENT", text: text) }

    init(model: TFLiteModel, metadata: ModelMetadata?) throws {
        guard let subgraph = model.subgraphs.first else { throw Self.invalid("The model has no subgraph.") }
        guard subgraph.inputs.count == 1, subgraph.tensors.indices.contains(subgraph.inputs[0]) else {
            throw Self.invalid("Image tflite models are assumed to have a single input.")
        }
        let tensor = subgraph.tensors[subgraph.inputs[0]]
        // GetImageTensorMetadataIfAny: metadata with subgraphs must describe the input.
        var tensorMetadata: ModelMetadata.TensorMetadata?
        if let sg = metadata?.subgraphs.first {
            guard let first = sg.inputs.first else {
                throw Failure(status: "INVALID_ARGUMENT", text: "Tensor index is out of range.")
            }
            tensorMetadata = first
        }
        if let content = tensorMetadata?.content {
            switch content {
            case .image(let colorSpace):
                // ColorSpaceType: UNKNOWN 0, RGB 1, GRAYSCALE 2.
                if colorSpace != 1 { throw Self.invalid("Only RGB color space is supported for now.") }
            case .feature:
                throw Self.invalid("Expected ImageProperties for tensor \(tensorMetadata?.name ?? "#0"), got "
                                   + "FeatureProperties.")
            case .other(let type):
                let names: [UInt8: String] = [3: "BoundingBoxProperties", 4: "AudioProperties"]
                throw Self.invalid("Expected ImageProperties for tensor \(tensorMetadata?.name ?? "#0"), got "
                                   + "\(names[type] ?? "NONE").")
            }
        }
        var normalization: (mean: [Float], std: [Float])?
        if let n = tensorMetadata?.normalization {
            guard n.mean.count == n.std.count else {
                throw Self.invalid("NormalizationOptions: expected mean and std of same dimension, got "
                                   + "\(n.mean.count) and \(n.std.count).")
            }
            guard n.mean.count == 1 || n.mean.count == 3 else {
                throw Self.invalid("NormalizationOptions: only 1 or 3 mean and std values are supported, got "
                                   + "\(n.mean.count).")
            }
            normalization = (n.mean, n.std)
        }
        guard tensor.shape.count == 4 else { throw Self.invalid("Only 4D tensors in BHWD layout are supported.") }
        guard tensor.type == .uint8 || tensor.type == .float32 else {
            throw Self.invalid("Type mismatch for input tensor \(tensor.name). Requested one of these types: "
                               + "uint8/float32, got \(tensor.type.schemaName).")
        }
        let (batch, h, w, depth) = (tensor.shape[0], tensor.shape[1], tensor.shape[2], tensor.shape[3])
        guard batch == 1, depth == 3 || depth == 4 else {
            throw Self.invalid("The input tensor should have dimensions 1 x height x width x depth, where depth = 3 "
                               + "or 4. Got \(batch) x \(h) x \(w) x \(depth).")
        }
        var range: ImageToTensor.ValueRange?
        if tensor.type == .float32 {
            guard let n = normalization else {
                throw Failure(status: "NOT_FOUND", text: "Input tensor has type float32: it requires specifying "
                              + "NormalizationOptions metadata to preprocess input images.")
            }
            // ConfigureImageToTensorCalculator: one mean and std for every channel.
            let mean = n.mean[0], std = n.std[0]
            if zip(n.mean, n.std).contains(where: { $0.0 != mean || $0.1 != std }) {
                throw Failure(status: "UNIMPLEMENTED", text: "Per-channel image normalization is not available.")
            }
            if abs(std) < Float.ulpOfOne {
                throw Failure(status: "INTERNAL", text: "NormalizationOptions.std_values can't be 0. Please check "
                              + "if the tensor metadata has been populated correctly.")
            }
            range = ImageToTensor.ValueRange(min: (0 - mean) / std, max: (255 - mean) / std)
        }
        guard w > 0 else { throw Self.invalid("The input width should be positive.") }
        guard h > 0 else { throw Self.invalid("The input height should be positive.") }
        (width, height, type) = (w, h, tensor.type)
        self.range = range
    }
}

extension TensorType {
    /// The schema's name (`EnumNameTensorType`): FLOAT32, UINT8, ...
    var schemaName: String {
        switch self {
        case .float32: return "FLOAT32"
        case .float16: return "FLOAT16"
        case .int32: return "INT32"
        case .uint8: return "UINT8"
        case .int64: return "INT64"
        case .string: return "STRING"
        case .bool: return "BOOL"
        case .int16: return "INT16"
        case .complex64: return "COMPLEX64"
        case .int8: return "INT8"
        case .float64: return "FLOAT64"
        case .complex128: return "COMPLEX128"
        case .uint64: return "UINT64"
        case .resource: return "RESOURCE"
        case .variant: return "VARIANT"
        case .uint32: return "UINT32"
        case .uint16: return "UINT16"
        case .int4: return "INT4"
        case .bfloat16: return "BFLOAT16"
        }
    }
}
