/// The cosine similarity of two embeddings as MediaPipe Tasks iOS computes it (`MPPCosineSimilarity`): both float
/// or both quantized (else an error), of one length (else an error), each value widened to double, the dot
/// product and both squared norms summed in index order, `dot / sqrt(|u|^2 * |v|^2)`; vectors of norm 0 give NaN
/// (the C++ utility refuses them; the iOS one divides).
enum CosineSimilarity {
    static func between(_ u: Embedding, _ v: Embedding) throws -> Double {
        if let a = u.floatEmbedding, let b = v.floatEmbedding {
            return try similarity(a.map(Double.init), b.map(Double.init))
        }
        if let a = u.quantizedEmbedding, let b = v.quantizedEmbedding {
            return try similarity(a.map(Double.init), b.map(Double.init))
        }
        throw VisionTaskError.invalidOption(MediaPipeErrorText.cosineMixed)
    }

    static func similarity(_ u: [Double], _ v: [Double]) throws -> Double {
        guard u.count == v.count else {
            throw VisionTaskError.invalidOption(MediaPipeErrorText.cosineSizes(u.count, v.count))
        }
        var dot = 0.0, normU = 0.0, normV = 0.0
        for i in u.indices {
            dot += u[i] * v[i]
            normU += u[i] * u[i]
            normV += v[i] * v[i]
        }
        return dot / (normU * normV).squareRoot()
    }
}
