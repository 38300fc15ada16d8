import TasksVision

/// Classifies a pose by its nearest samples (ML Kit's `PoseClassifier`): k-NN in two stages, both
/// comparing the pose and its mirror image (x negated, left and right landmarks not swapped) with
/// each sample, weighted per axis, and keeping the nearer of the two.
///
/// 1. The `maxDistanceTopK` samples of least maximum per-coordinate distance survive.
/// 2. Of those, the `meanDistanceTopK` of least mean distance (the sum over the 23 vectors'
///    coordinates, divided by 46 as in ML Kit) vote: each class's confidence is its number of votes.
///
/// Both stages keep their k as ML Kit's `java.util.PriorityQueue`s do, so samples at equal
/// distances survive, and are visited, as in ML Kit.
public struct PoseClassifier: Sendable {
    /// ML Kit's k of the first stage.
    public static let defaultMaxDistanceTopK = 30
    /// ML Kit's k of the second stage.
    public static let defaultMeanDistanceTopK = 10
    /// ML Kit's axis weights: z counts a fifth, being less accurate.
    public static let defaultAxesWeights = PointF3D(x: 1, y: 1, z: 0.2)

    /// The samples, in the order the k-NN scans them.
    public let samples: [PoseSample]
    /// The first stage's k: the samples of least maximum distance kept.
    public let maxDistanceTopK: Int
    /// The second stage's k: the samples of least mean distance that vote.
    public let meanDistanceTopK: Int
    /// The weights of the coordinates' differences, per axis.
    public let axesWeights: PointF3D
    /// The embedding of the poses classified; its torso multiplier should be the samples'.
    public let embedder: PoseEmbedding
    /// The samples' embeddings one after another, their 69 floats padded with zeros to 9 vectors of 8,
    /// for the first stage's scan.
    private let flatEmbeddings: [SIMD8<Float>]
    static let lanes = 9

    /// A classifier over samples; throws if a k is under 1 (Java's `PriorityQueue` refuses it) or a
    /// sample's embedding does not have 23 vectors.
    public init(samples: [PoseSample], maxDistanceTopK: Int = PoseClassifier.defaultMaxDistanceTopK,
                meanDistanceTopK: Int = PoseClassifier.defaultMeanDistanceTopK,
                axesWeights: PointF3D = PoseClassifier.defaultAxesWeights,
                embedder: PoseEmbedding = PoseEmbedding()) throws {
        guard maxDistanceTopK >= 1 else {
            throw PoseClassificationError.invalidSetting("maxDistanceTopK", "at least 1")
        }
        guard meanDistanceTopK >= 1 else {
            throw PoseClassificationError.invalidSetting("meanDistanceTopK", "at least 1")
        }
        let size = PoseEmbedding.pairs.count
        if let bad = samples.first(where: { $0.embedding.count != size }) {
            throw PoseClassificationError.invalidSetting("sample \(bad.name)'s embedding", "\(size) vectors")
        }
        self.samples = samples
        self.maxDistanceTopK = maxDistanceTopK
        self.meanDistanceTopK = meanDistanceTopK
        self.axesWeights = axesWeights
        self.embedder = embedder
        flatEmbeddings = samples.flatMap { Self.lanes($0.embedding.flatMap { [$0.x, $0.y, $0.z] }) }
    }

    /// The largest confidence a class can have: the smaller k.
    public var confidenceRange: Int { min(maxDistanceTopK, meanDistanceTopK) }

    /// Classifies an ML Kit pose (its `position3D`s); a pose without landmarks gets no classes.
    public func classify(_ pose: Pose) -> ClassificationResult {
        (try? classify(PointF3D.landmarks(of: pose))) ?? ClassificationResult()
    }

    /// Classifies 33 landmarks in pixels; no landmarks give no classes.
    public func classify(_ landmarks: [PointF3D]) throws -> ClassificationResult {
        try classify(landmarks, excluding: nil)
    }

    /// Classifies against every sample but one: the same scan as over the other samples alone.
    func classify(_ landmarks: [PointF3D], excluding excluded: Int?) throws -> ClassificationResult {
        var result = ClassificationResult()
        if landmarks.isEmpty { return result }
        let flipped = landmarks.map { Utils.multiply($0, PointF3D(x: -1, y: 1, z: 1)) }
        let embedding = try embedder.embedding(landmarks)
        let flippedEmbedding = try embedder.embedding(flipped)
        let weights = axesWeights

        typealias Scored = (sample: Int, distance: Float)
        let farthestFirst: (Scored, Scored) -> Int = { -Java.compare($0.distance, $1.distance) }
        var maxDistances = JavaPriorityQueue<Scored>(comparator: farthestFirst)
        let query = Self.lanes(embedding.flatMap { [$0.x, $0.y, $0.z] })
        let flippedQuery = Self.lanes(flippedEmbedding.flatMap { [$0.x, $0.y, $0.z] })
        // Zero weights on the padding: its terms are 0, which cannot change a maximum from 0.
        let w = Self.lanes((0..<(embedding.count * 3)).map { [weights.x, weights.y, weights.z][$0 % 3] })
        flatEmbeddings.withUnsafeBufferPointer { all in
            for index in samples.indices where index != excluded {
                let s = UnsafeBufferPointer(rebasing: all[(index * Self.lanes)..<((index + 1) * Self.lanes)])
                let distance = Java.min(Self.maxDistance(query, s, w), Self.maxDistance(flippedQuery, s, w))
                maxDistances.offer((index, distance))
                if maxDistances.count > maxDistanceTopK { maxDistances.poll() }
            }
        }

        var meanDistances = JavaPriorityQueue<Scored>(comparator: farthestFirst)
        let divisor = Float(embedding.count * 2)
        for (index, _) in maxDistances.elements {
            let s = samples[index].embedding
            var originalSum: Float = 0, flippedSum: Float = 0
            for i in 0..<embedding.count {
                originalSum += Utils.sumAbs(Utils.multiply(Utils.subtract(embedding[i], s[i]), weights))
                flippedSum += Utils.sumAbs(Utils.multiply(Utils.subtract(flippedEmbedding[i], s[i]), weights))
            }
            meanDistances.offer((index, Java.min(originalSum, flippedSum) / divisor))
            if meanDistances.count > meanDistanceTopK { meanDistances.poll() }
        }

        for (index, _) in meanDistances.elements {
            result.incrementClassConfidence(samples[index].className)
        }
        return result
    }

    /// 69 floats as 9 vectors of 8, the last padded with zeros.
    static func lanes(_ values: [Float]) -> [SIMD8<Float>] {
        (0..<lanes).map { v in SIMD8<Float>((0..<8).map { v * 8 + $0 < values.count ? values[v * 8 + $0] : 0 }) }
    }

    /// ML Kit's max distance: the largest |(sample - pose) * weight| over all coordinates, folded with
    /// `Math.max` from 0. Every term is +0, positive or NaN, and `Math.max` gives NaN if either side is,
    /// so the fold's order does not matter: the largest value, or NaN if there is one.
    @inline(__always)
    static func maxDistance(_ e: [SIMD8<Float>], _ s: UnsafeBufferPointer<SIMD8<Float>>,
                            _ w: [SIMD8<Float>]) -> Float {
        var m = SIMD8<Float>(repeating: 0)
        var nan = SIMDMask<SIMD8<Int32>>(repeating: false)
        for i in 0..<lanes {
            let d = (s[i] - e[i]) * w[i]
            let v = d.replacing(with: -d, where: d .< 0)
            nan .|= v .!= v
            m.replace(with: v, where: v .> m)
        }
        return any(nan) ? .nan : m.max()
    }
}
