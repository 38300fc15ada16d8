#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Model Maker's gesture classifier head (gesture_recognizer.py `_create_model`): for each hidden
/// width, BatchNormalization → ReLU → Dropout → Dense(width); then BatchNormalization → ReLU →
/// Dropout → Dense(classes) → softmax.
///
/// Keras 2 semantics: BatchNormalization with momentum 0.99 and epsilon 1e-3 normalizes a
/// training batch by its own mean and biased variance and moves its moving statistics by
/// `moving -= (moving - batch) * (1 - momentum)`; gamma 1, beta 0, moving mean 0 and moving
/// variance 1 at first. Dropout is inverted (kept units scaled by 1 / (1 - rate)). Dense kernels
/// are glorot-uniform, biases zero. Arithmetic is in Double; the export rounds to float32.
public struct GestureClassifierHead: Sendable, Equatable {
    /// One BatchNormalization → ReLU → Dropout → Dense block.
    public struct Block: Sendable, Equatable {
        public var inputs: Int
        public var outputs: Int
        public var gamma: [Double]
        public var beta: [Double]
        public var movingMean: [Double]
        public var movingVariance: [Double]
        /// Dense kernel, `inputs` rows of `outputs` (Keras's [in, out] layout).
        public var kernel: [Double]
        public var bias: [Double]

        public init(inputs: Int, outputs: Int, kernel: [Double]) {
            self.inputs = inputs; self.outputs = outputs
            gamma = [Double](repeating: 1, count: inputs); beta = [Double](repeating: 0, count: inputs)
            movingMean = [Double](repeating: 0, count: inputs); movingVariance = [Double](repeating: 1, count: inputs)
            self.kernel = kernel; bias = [Double](repeating: 0, count: outputs)
        }

        /// BatchNormalization in inference mode as a per-feature scale and offset.
        public func foldedBatchNorm() -> (scale: [Double], offset: [Double]) {
            let scale = (0..<inputs).map {
                gamma[$0] / (movingVariance[$0] + GestureClassifierHead.epsilon).squareRoot()
            }
            return (scale, (0..<inputs).map { beta[$0] - movingMean[$0] * scale[$0] })
        }
    }

    public static let momentum = 0.99
    public static let epsilon = 1e-3

    public private(set) var blocks: [Block]
    public var classes: Int { blocks.last?.outputs ?? 0 }
    public var inputSize: Int { blocks.first?.inputs ?? 0 }

    /// A head of these blocks; each block's arrays must match its sizes, and each block take
    /// what the one before gives.
    public init(blocks: [Block]) throws {
        guard !blocks.isEmpty else { throw TrainingError.invalidOption("a head needs at least one block") }
        for (i, b) in blocks.enumerated() {
            let d = b.inputs, o = b.outputs
            guard d >= 1, o >= 1, [b.gamma, b.beta, b.movingMean, b.movingVariance].allSatisfy({ $0.count == d }),
                  b.kernel.count == d * o, b.bias.count == o, i == 0 || blocks[i - 1].outputs == d else {
                throw TrainingError.invalidOption("head block \(i) (\(d) → \(o)) has arrays of the wrong size or does "
                                                  + "not take the previous block's \(i > 0 ? blocks[i - 1].outputs : 0) "
                                                  + "outputs")
            }
        }
        self.blocks = blocks
    }

    /// A new head with glorot-uniform kernels drawn, block by block and row by row, from `random`.
    init(inputSize: Int, hiddenWidths: [Int], classes: Int, random: inout TrainingRandom) {
        var blocks: [Block] = []
        var width = inputSize
        for out in hiddenWidths + [classes] {
            let limit = (6 / Double(width + out)).squareRoot()
            let kernel = (0..<(width * out)).map { _ in (2 * random.uniform() - 1) * limit }
            blocks.append(Block(inputs: width, outputs: out, kernel: kernel))
            width = out
        }
        self.blocks = blocks
    }

    /// Class probabilities of one embedding (of `inputSize` values) in inference mode (moving
    /// statistics, no dropout).
    func probabilities(_ embedding: [Double]) -> [Double] {
        var a = embedding
        for block in blocks {
            var h = [Double](repeating: 0, count: block.inputs)
            for j in 0..<block.inputs {
                let y = block.gamma[j] * (a[j] - block.movingMean[j])
                    / (block.movingVariance[j] + Self.epsilon).squareRoot() + block.beta[j]
                h[j] = max(y, 0)
            }
            a = Self.dense(h, block)
        }
        return Self.softmax(a)
    }

    static func dense(_ h: [Double], _ block: Block) -> [Double] {
        var z = block.bias
        for j in 0..<block.inputs where h[j] != 0 {
            let row = j * block.outputs
            for k in 0..<block.outputs { z[k] += h[j] * block.kernel[row + k] }
        }
        return z
    }

    /// The first index of the largest value (TensorFlow's `argmax`).
    static func argmax(_ v: [Double]) -> Int {
        var best = 0
        for i in v.indices where v[i] > v[best] { best = i }
        return best
    }

    static func softmax(_ z: [Double]) -> [Double] {
        let top = z.max() ?? 0
        let e = z.map { exp($0 - top) }
        let sum = e.reduce(0, +)
        return e.map { $0 / sum }
    }

    /// The trainable parameters as arrays, in a fixed order (per block: gamma, beta, kernel, bias).
    var parameters: [[Double]] {
        get { blocks.flatMap { [$0.gamma, $0.beta, $0.kernel, $0.bias] } }
        set {
            for i in blocks.indices {
                blocks[i].gamma = newValue[4 * i]; blocks[i].beta = newValue[4 * i + 1]
                blocks[i].kernel = newValue[4 * i + 2]; blocks[i].bias = newValue[4 * i + 3]
            }
        }
    }

    /// One training step (Keras `train_step`): the forward pass in training mode (batch
    /// statistics, dropout masks drawn block by block, sample by sample, unit by unit, from
    /// `random` when the rate is above zero), the moving statistics' update, the focal loss's
    /// gradients and an Adam step. Returns the batch's mean loss and how many samples the
    /// training-mode forward pass got right.
    mutating func trainStep(_ x: [[Double]], labels: [Int], dropout: Double, loss: FocalLoss,
                            random: inout TrainingRandom, optimizer: inout AdamOptimizer,
                            learningRate: Double) -> (loss: Double, correct: Int) {
        let n = x.count, N = Double(x.count)
        struct Cache { var xhat: [[Double]]; var y: [[Double]]; var h: [[Double]]; var mask: [[Double]]
                       var inverseStd: [Double] }
        var caches: [Cache] = []
        var a = x
        for b in blocks.indices {
            let block = blocks[b]
            let d = block.inputs
            var mean = [Double](repeating: 0, count: d), variance = [Double](repeating: 0, count: d)
            for row in a { for j in 0..<d { mean[j] += row[j] } }
            for j in 0..<d { mean[j] /= N }
            for row in a { for j in 0..<d { let c = row[j] - mean[j]; variance[j] += c * c } }
            for j in 0..<d { variance[j] /= N }
            let inverseStd = variance.map { 1 / ($0 + Self.epsilon).squareRoot() }
            var cache = Cache(xhat: [], y: [], h: [], mask: [], inverseStd: inverseStd)
            var next: [[Double]] = []
            for row in a {
                let xhat = (0..<d).map { (row[$0] - mean[$0]) * inverseStd[$0] }
                let y = (0..<d).map { block.gamma[$0] * xhat[$0] + block.beta[$0] }
                var mask = [Double](repeating: 1, count: d)
                if dropout > 0 {
                    let scale = 1 / (1 - dropout)
                    for j in 0..<d { mask[j] = random.uniform() >= dropout ? scale : 0 }
                }
                let h = (0..<d).map { max(y[$0], 0) * mask[$0] }
                cache.xhat.append(xhat); cache.y.append(y); cache.mask.append(mask); cache.h.append(h)
                next.append(Self.dense(h, block))
            }
            for j in 0..<d {
                blocks[b].movingMean[j] -= (blocks[b].movingMean[j] - mean[j]) * (1 - Self.momentum)
                blocks[b].movingVariance[j] -= (blocks[b].movingVariance[j] - variance[j]) * (1 - Self.momentum)
            }
            caches.append(cache)
            a = next
        }
        // Loss and d(loss)/d(logits) through the softmax: only the true class's probability counts.
        var total = 0.0, correct = 0
        var dz: [[Double]] = []
        for i in 0..<n {
            let p = Self.softmax(a[i])
            let t = labels[i]
            total += loss.loss(probability: p[t])
            if Self.argmax(p) == t { correct += 1 }
            let g = loss.derivative(probability: p[t]) / N
            dz.append(p.indices.map { k in p[k] * ((k == t ? g : 0) - g * p[t]) })
        }
        var gradients: [[Double]] = []
        for b in blocks.indices.reversed() {
            let block = blocks[b], cache = caches[b]
            let d = block.inputs, o = block.outputs
            var dKernel = [Double](repeating: 0, count: d * o), dBias = [Double](repeating: 0, count: o)
            var dy = [[Double]]()
            for i in 0..<n {
                for k in 0..<o { dBias[k] += dz[i][k] }
                for j in 0..<d where cache.h[i][j] != 0 {
                    for k in 0..<o { dKernel[j * o + k] += cache.h[i][j] * dz[i][k] }
                }
                dy.append((0..<d).map { j in
                    guard cache.y[i][j] > 0, cache.mask[i][j] != 0 else { return 0 }
                    var s = 0.0
                    for k in 0..<o { s += dz[i][k] * block.kernel[j * o + k] }
                    return s * cache.mask[i][j]
                })
            }
            // A hidden layer's bias feeds a BatchNormalization in training mode, which subtracts the batch
            // mean: its gradient is exactly zero. Computed, it is rounding noise that Adam, dividing by
            // its own size, would turn into steps of the full rate in random directions; the exact zero
            // keeps it (and the moving mean it would drag) where the math puts it.
            if b + 1 < blocks.count { dBias = [Double](repeating: 0, count: o) }
            var dGamma = [Double](repeating: 0, count: d), dBeta = [Double](repeating: 0, count: d)
            for i in 0..<n { for j in 0..<d { dGamma[j] += dy[i][j] * cache.xhat[i][j]; dBeta[j] += dy[i][j] } }
            gradients = [dGamma, dBeta, dKernel, dBias] + gradients
            if b > 0 {
                dz = (0..<n).map { i in
                    (0..<d).map { j in
                        block.gamma[j] * cache.inverseStd[j] / N
                            * (N * dy[i][j] - dBeta[j] - cache.xhat[i][j] * dGamma[j])
                    }
                }
            }
        }
        var p = parameters
        optimizer.step(&p, gradients, learningRate: learningRate)
        parameters = p
        return (total / N, correct)
    }
}
