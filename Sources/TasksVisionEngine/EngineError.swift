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
    /// point outside its type's range, per-channel parameters that do not fit the tensor's shape. `op` names the
    /// operator that reads or writes the tensor ("operator 3 (CONV_2D)") when one was being built.
    case invalidQuantization(model: String, tensor: String, reason: String, op: String? = nil)

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
        case let .invalidQuantization(model, tensor, reason, op):
            return "\(model): \(op.map { $0 + ": " } ?? "")tensor '\(tensor)' has invalid quantization: \(reason)"
        }
    }

    /// This error with the operator being built when it was found, if it is a quantization error without one.
    func naming(_ node: Graph.Node) -> EngineError {
        guard case let .invalidQuantization(model, tensor, reason, nil) = self else { return self }
        return .invalidQuantization(model: model, tensor: tensor, reason: reason,
                                    op: "operator \(node.index) (\(node.op.name))")
    }
}
