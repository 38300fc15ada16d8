#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Model Maker's `FocalLoss` (Lin et al. 2017) on softmax probabilities and one-hot labels:
/// probabilities clipped to [1e-7, 1 - 1e-7], loss `-(1 - p)^gamma * log p` of the true class,
/// summed over the batch and divided by the batch size. With gamma 0 it is cross-entropy.
public struct FocalLoss: Sendable, Equatable {
    public var gamma: Double
    /// The clipping bound (Model Maker's `_epsilon`).
    public var epsilon = 1e-7

    public init(gamma: Double = 2) { self.gamma = gamma }

    /// The loss of one sample whose true class has probability `p` (before dividing by the batch).
    public func loss(probability p: Double) -> Double {
        let q = min(max(p, epsilon), 1 - epsilon)
        return -pow(1 - q, gamma) * log(q)
    }

    /// d(loss)/dp for one sample; zero where the clip is active (TensorFlow's clip gradient).
    public func derivative(probability p: Double) -> Double {
        if p < epsilon || p > 1 - epsilon { return 0 }
        let a = pow(1 - p, gamma)
        let b = gamma == 0 ? 0 : gamma * pow(1 - p, gamma - 1)
        return b * log(p) - a / p
    }
}
