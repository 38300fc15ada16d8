import Foundation
import TasksVision
import TasksVisionFormat

/// `vision embed [--l2-normalize] [--quantize] [options] PATH... | --video ...` (MediaPipe ImageEmbedder), and
/// beyond MediaPipe `vision embed --similar QUERY FOLDER`: the folder's photos ranked by cosine similarity to the
/// query, their embeddings cached (`EmbeddingCache`) so that a second query over the folder is fast.
enum EmbedCommand: TaskCommand {
    /// MediaPipe's own embedder models are not to be had; its ImageEmbedder takes this classifier, whose 1000
    /// softmax values are the embedding.
    static let defaultModel = "efficientnet_lite0_float32.tflite"

    static let table = OptionTable(
        command: "embed", summary: "Feature vectors of images, and photos ranked by likeness (MediaPipe ImageEmbedder).",
        positional: TaskCommandOptions.positional + ["--similar QUERY DIR"],
        options: [
            TaskCommandOptions.model("image model whose outputs are the embedding", default: defaultModel),
            .flag("--l2-normalize", "divide each embedding by its L2 norm"),
            .flag("--quantize", "give each embedding as bytes (round(v * 128), -128...127)"),
            .text("--similar", "QUERY", default: "none",
                  "rank the photos of the folder DIR by how like QUERY (an image) they are, best first; "
                  + "embeddings are cached in $XDG_CACHE_HOME/tasksvision/embeddings"),
        ] + TaskCommandOptions.common,
        ownOptions: ["--l2-normalize", "--quantize", "--similar"])

    static let benchmarks = [
        BenchmarkEntry(name: "embed", photo: "negative_animals_1.png", sequence: "pose_dance_1",
                       reference: .init("ImageEmbedder", model: defaultModel, call: "embed")),
    ]

    /// One head in the JSON: {"headIndex", "headName", "floatEmbedding" | "quantizedEmbedding"}.
    struct Head: Encodable {
        let embedding: Embedding
        enum CodingKeys: String, CodingKey { case headIndex, headName, floatEmbedding, quantizedEmbedding }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(embedding.headIndex, forKey: .headIndex)
            try c.encode(embedding.headName, forKey: .headName)
            if let f = embedding.floatEmbedding { try c.encode(f, forKey: .floatEmbedding) }
            if let q = embedding.quantizedEmbedding { try c.encode(q, forKey: .quantizedEmbedding) }
        }
    }

    struct Output: Encodable { let embeddings: [Head] }

    static func run(_ o: ParsedOptions) throws {
        if o.isSet("--similar") { return try Similar.run(o) }
        try TaskShell(o, try maker(o)).run()
    }

    static func modelPath(_ o: ParsedOptions) throws -> String {
        // Any image model whose outputs are vectors will do; ImageEmbedder names a detector or segmenter.
        try o.string("--model").map { (try? ModelLocator.resolve($0)) ?? $0 }
            ?? TaskCommandSupport.defaultModel(defaultModel)
    }

    static func options(_ o: ParsedOptions, model: String, setup: FrameTaskSetup) -> ImageEmbedderOptions {
        let options = setup.options(ImageEmbedderOptions(), model: model)
        options.l2Normalize = o.flag("--l2-normalize")
        options.quantize = o.flag("--quantize")
        return options
    }

    static func maker(_ o: ParsedOptions) throws -> TaskMaker {
        let roi = try TaskCommandOptions.region(o)
        let model = try modelPath(o)
        return TaskMaker { setup in
            let options = Self.options(o, model: model, setup: setup)
            options.resultCallback = setup.callback(report)
            return LibraryFrameTask(try ImageEmbedder(options: options), roi: roi, report: report)
        }
    }

    /// Per head: its length and norm ("1000 floats, L2 norm 0.164").
    static func summary(_ r: ImageEmbedderResult) -> String {
        r.embeddingResult.embeddings.map { e -> String in
            if let f = e.floatEmbedding {
                let norm = f.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
                return String(format: "%d floats, L2 norm %.3f", f.count, norm)
            }
            return "\(e.quantizedEmbedding?.count ?? 0) bytes"
        }.joined(separator: "; ")
    }

    static func report(_ r: ImageEmbedderResult) -> FrameReport {
        FrameReport(result: Output(embeddings: r.embeddingResult.embeddings.map(Head.init)), summary: summary(r)) { _ in }
    }

    /// `--similar QUERY FOLDER`.
    enum Similar {
        struct Line: Encodable {
            let query: String
            let file: String
            let similarity: Double
        }

        static func run(_ o: ParsedOptions) throws {
            guard let query = o.string("--similar") else { return }
            guard o.positional.count == 1, let folder = o.positional.first else {
                throw UsageError("--similar QUERY takes one FOLDER of photos to rank")
            }
            for option in ["--video", "--overlay", "--stdin", "--jobs", "--live", "--max-frames", "--fps"]
                where o.isSet(option) {
                throw UsageError("\(option) does not go with --similar")
            }
            Interrupt.cooperate()
            let model = try modelPath(o)
            let files = try FrameInput.imageFiles(folder).filter { !sameFile($0, query) }
            guard !files.isEmpty else { throw UsageError("--similar: \(folder) holds no PNG or JPEG photos") }
            let setup = FrameTaskSetup(mode: .image, threads: try o.int("--threads"), reporter: nil)
            let embedder = try ImageEmbedder(options: options(o, model: model, setup: setup))
            let roi = try TaskCommandOptions.region(o)
            let orientation = try o.string("--orientation").map(FrameInput.orientation)
            let settings = ["l2 \(o.flag("--l2-normalize"))", "quantize \(o.flag("--quantize"))",
                            "roi \(o.string("--roi") ?? "")", "orientation \(orientation?.rawValue ?? "up")",
                            "ignore-exif \(o.flag("--ignore-exif"))"]
            let cache = try EmbeddingCache(root: ModelsCommand.cacheFolder(ProcessInfo.processInfo.environment),
                                           model: model, settings: settings)
            func embedding(_ path: String) throws -> Embedding {
                let hash = try SHA256.hexDigest(ofFile: path)
                if let cached = cache.embedding(hash) { return cached }
                let image = try TaskCommandSupport.load(path, orientation: orientation,
                                                        ignoreExif: o.flag("--ignore-exif"))
                let r = try embedder.embed(image: image, imageProcessingOptions: roi)
                guard let e = r.embeddingResult.embeddings.first else {
                    throw UsageError("\(path): the model gives no embedding")
                }
                let first = Embedding(floatEmbedding: e.floatEmbedding, quantizedEmbedding: e.quantizedEmbedding,
                                      headIndex: 0, headName: nil)
                cache.store(first, hash)
                return first
            }
            let target = try embedding(query)
            var ranked: [(file: String, similarity: Double)] = []
            for (i, file) in files.enumerated() {
                if Interrupt.requested { break }
                TaskCommandSupport.progress(i, files.count, file)
                let similarity = try ImageEmbedder.cosineSimilarity(embedding1: target,
                                                                    embedding2: try embedding(file)).doubleValue
                ranked.append((file, similarity))
            }
            // Best first; equal similarities in file order.
            let order = ranked.enumerated().sorted { a, b in
                a.element.similarity != b.element.similarity ? a.element.similarity > b.element.similarity
                    : a.offset < b.offset
            }.map(\.element)
            for r in order {
                if o.flag("--json") {
                    let line = Line(query: query, file: r.file, similarity: r.similarity)
                    print(NativePath.escapingJSON(String(decoding: try TaskCommandSupport.encoder.encode(line),
                                                         as: UTF8.self)))
                } else {
                    print(String(format: "%.4f  ", r.similarity) + r.file)
                }
            }
        }

        static func sameFile(_ a: String, _ b: String) -> Bool {
            URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
        }
    }
}

extension ImageEmbedder: LibraryTask {
    func detect(image: MPImage, imageProcessingOptions: ImageProcessingOptions?) throws -> ImageEmbedderResult {
        try embed(image: image, imageProcessingOptions: imageProcessingOptions)
    }

    func detect(videoFrame: MPImage, timestampInMilliseconds: Int,
                imageProcessingOptions: ImageProcessingOptions?) throws -> ImageEmbedderResult {
        try embed(videoFrame: videoFrame, timestampInMilliseconds: timestampInMilliseconds,
                  imageProcessingOptions: imageProcessingOptions)
    }

    func detectAsync(image: MPImage, timestampInMilliseconds: Int,
                     imageProcessingOptions: ImageProcessingOptions?) throws -> Bool {
        try embedAsync(image: image, timestampInMilliseconds: timestampInMilliseconds,
                       imageProcessingOptions: imageProcessingOptions)
    }
}
