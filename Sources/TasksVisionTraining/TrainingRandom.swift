/// The trainer's random numbers: SplitMix64 (Steele, Lea and Flood, 2014), chosen because it is
/// a few lines in any language, so `tools/reference_gesture_training.py` draws the same numbers
/// and its training can be compared weight for weight. Keras's own generator is not reproduced:
/// Model Maker is unseeded, so no run of it can be matched anyway.
struct TrainingRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A uniform index in 0..<n (n > 0), by multiply-shift on 53 bits (no modulo bias to speak of).
    mutating func index(below n: Int) -> Int { min(n - 1, Int(uniform() * Double(n))) }

    /// The streams a training run uses, derived from its seed.
    static func streams(seed: UInt64) -> (initial: TrainingRandom, order: TrainingRandom, dropout: TrainingRandom) {
        (TrainingRandom(seed: seed), TrainingRandom(seed: seed ^ 0x6F72_6465_7273_6565),
         TrainingRandom(seed: seed ^ 0x6472_6F70_6F75_7473))
    }
}
