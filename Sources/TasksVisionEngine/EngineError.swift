import TasksVisionFormat

/// Errors raised while building or running an execution plan.
public enum EngineError: Error, Equatable, CustomStringConvertible {
    /// The model uses an operator the engine does not implement.
    case unsupportedOperator(model: String, operatorIndex: Int, op: String)
    /// The model uses an operator in a way the engine does not implement (a type, a shape, an option).
    case unsupportedFeature(model: String, operatorIndex: Int, op: String, reason: String)
    /// The model is inconsistent (shapes that do not agree, missing constants).
    case invalidModel(model: String, reason: String)
    /// A caller passed a bad argument (input index, element count, thread count).
    case invalidArgument(String)
    /// A quantized tensor's parameters cannot be computed with: a scale that is not a positive finite number, a zero
    /// point outside its type's range, per-channel parameters that do not fit the tensor's shape.
    case invalidQuantization(model: String, tensor: String, reason: String)

    public var description: String {
        switch self {
        case let .unsupportedOperator(model, index, op):
            return "\(model): operator \(index) is \(op), which the engine does not support"
        case let .unsupportedFeature(model, index, op, reason):
            return "\(model): operator \(index) (\(op)): \(reason)"
        case let .invalidModel(model, reason):
            return "\(model): invalid model: \(reason)"
        case let .invalidArgument(reason):
            return "invalid argument: \(reason)"
        case let .invalidQuantization(model, tensor, reason):
            return "\(model): tensor '\(tensor)' has invalid quantization: \(reason)"
        }
    }
}
