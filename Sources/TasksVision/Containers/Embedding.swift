/// The embedding of one head (MediaPipe's `Embedding`): a float vector, or with `quantize` a byte vector.
public struct Embedding: Sendable, Equatable {
    /// The values, unless the embedder quantizes.
    public var floatEmbedding: [Float]?
    /// The scalar-quantized values (`round(v * 128)` clamped to -128...127), when the embedder quantizes.
    public var quantizedEmbedding: [Int8]?
    /// The index of the head (the model output) in the model.
    public var headIndex: Int
    /// The head's name, its output tensor's name in the metadata; nil without one.
    public var headName: String?

    public init(floatEmbedding: [Float]?, quantizedEmbedding: [Int8]?, headIndex: Int, headName: String?) {
        self.floatEmbedding = floatEmbedding; self.quantizedEmbedding = quantizedEmbedding
        self.headIndex = headIndex; self.headName = headName
    }
}

/// An embedder's result for one image (MediaPipe's `EmbeddingResult`): one `Embedding` per head.
public struct EmbeddingResult: Sendable, Equatable {
    public var embeddings: [Embedding]
    /// The timestamp of the frame (video and live stream), or 0.
    public var timestampInMilliseconds: Int

    public init(embeddings: [Embedding], timestampInMilliseconds: Int = 0) {
        self.embeddings = embeddings; self.timestampInMilliseconds = timestampInMilliseconds
    }
}
