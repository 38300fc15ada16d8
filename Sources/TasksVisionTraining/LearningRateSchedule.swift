#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Model Maker's learning-rate schedule (a Keras `LearningRateScheduler` callback): the rate of
/// epoch `e` (from 0) is `initial * decay^e`, set before the epoch's first step.
public struct LearningRateSchedule: Sendable, Equatable {
    public var initial: Double
    public var decay: Double

    public init(initial: Double = 0.001, decay: Double = 0.99) {
        self.initial = initial
        self.decay = decay
    }

    public func rate(epoch: Int) -> Double { initial * pow(decay, Double(epoch)) }
}
