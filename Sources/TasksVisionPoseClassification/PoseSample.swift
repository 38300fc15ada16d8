import Foundation

/// A pose of a known class, kept as its embedding (ML Kit's `PoseSample`).
public struct PoseSample: Sendable, Equatable {
    /// The sample's name (in the quickstart's file, the image it was taken from).
    public let name: String
    /// The class the sample shows.
    public let className: String
    /// Its 23 embedding vectors.
    public let embedding: [PointF3D]

    /// A sample from 33 landmarks in pixels (x times width, y times height, z times width).
    public init(name: String, className: String, landmarks: [PointF3D],
                embedder: PoseEmbedding = PoseEmbedding()) throws {
        self.name = name
        self.className = className
        embedding = try embedder.embedding(landmarks)
    }
}

/// A row of a sample file that was skipped, and why (as ML Kit's reader logs and skips it).
public struct SkippedPoseSampleRow: Sendable, Equatable, CustomStringConvertible {
    /// The row's number, from 1, counting lines as Java's `BufferedReader.readLine` does.
    public let line: Int
    /// ML Kit's log message for it.
    public let reason: String
    /// "line N: reason".
    public var description: String { "line \(line): \(reason)" }
}

/// Pose samples read from text in the quickstart's format: one sample a line,
/// `name,class,x1,y1,z1,...,x33,y33,z33`.
public struct PoseSampleFile: Sendable {
    /// The valid rows' samples, in file order.
    public let samples: [PoseSample]
    /// The rows skipped.
    public let skipped: [SkippedPoseSampleRow]
    /// Each valid row's 33 landmarks, in file order (parallel to `samples`).
    public let landmarks: [[PointF3D]]

    static let tokenCount = PoseEmbedding.landmarkCount * 3 + 2

    /// Reads samples as ML Kit's `PoseClassifierProcessor` does: lines end at "\n", "\r" or "\r\n";
    /// each is split at every `separator` (a plain string here, a regular expression in ML Kit);
    /// a row without exactly 101 fields, or with a coordinate `Float.parseFloat` rejects, is
    /// skipped. Bytes that are not UTF-8 read as U+FFFD.
    public init(data: Data, separator: String = ",", embedder: PoseEmbedding = PoseEmbedding()) {
        var samples: [PoseSample] = [], skipped: [SkippedPoseSampleRow] = [], landmarks: [[PointF3D]] = []
        let text = String(decoding: data, as: UTF8.self)
        for (number, line) in Self.lines(text).enumerated() {
            let tokens = Self.split(line, separator)
            guard tokens.count == Self.tokenCount else {
                skipped.append(.init(line: number + 1, reason: "Invalid number of tokens for PoseSample"))
                continue
            }
            var points: [PointF3D] = []
            points.reserveCapacity(PoseEmbedding.landmarkCount)
            var bad: String?
            for i in stride(from: 2, to: tokens.count, by: 3) {
                guard let x = JavaFloatParser.parse(tokens[i]), let y = JavaFloatParser.parse(tokens[i + 1]),
                      let z = JavaFloatParser.parse(tokens[i + 2]) else {
                    bad = "Invalid value \(tokens[i]) for landmark position."
                    break
                }
                points.append(PointF3D(x: x, y: y, z: z))
            }
            if let bad {
                skipped.append(.init(line: number + 1, reason: bad))
                continue
            }
            // 33 landmarks, so the embedding cannot fail.
            guard let sample = try? PoseSample(name: tokens[0], className: tokens[1], landmarks: points,
                                               embedder: embedder) else { continue }
            samples.append(sample)
            landmarks.append(points)
        }
        self.samples = samples
        self.skipped = skipped
        self.landmarks = landmarks
    }

    /// Reads a sample file; throws if it cannot be read or has no valid row.
    public init(contentsOfFile path: String, separator: String = ",",
                embedder: PoseEmbedding = PoseEmbedding()) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PoseClassificationError.unreadable(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw PoseClassificationError.unreadable(path: path, reason: "a folder, not a file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PoseClassificationError.unreadable(path: path, reason: "permission denied or read error")
        }
        self.init(data: data, separator: separator, embedder: embedder)
        if samples.isEmpty {
            throw PoseClassificationError.noSamples(source: path, firstProblem: skipped.first?.description)
        }
    }

    /// The classes of the samples, in order of first appearance.
    public var classes: [String] {
        var seen = Set<String>()
        return samples.map(\.className).filter { seen.insert($0).inserted }
    }

    /// Lines as `BufferedReader.readLine` gives them: a line ends at "\n", "\r" or "\r\n", and a
    /// final line needs no end.
    static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        var current: [UInt16] = []
        var afterCR = false
        for unit in text.utf16 {
            if afterCR {
                afterCR = false
                if unit == 0x0A { continue }
            }
            if unit == 0x0A || unit == 0x0D {
                lines.append(String(decoding: current, as: UTF16.self))
                current.removeAll(keepingCapacity: true)
                afterCR = unit == 0x0D
            } else {
                current.append(unit)
            }
        }
        if !current.isEmpty { lines.append(String(decoding: current, as: UTF16.self)) }
        return lines
    }

    /// Splits at every occurrence of `separator`, by UTF-16 code units as Java does, keeping empty
    /// fields; an empty separator (which Guava refuses) leaves the line whole.
    static func split(_ line: String, _ separator: String) -> [String] {
        let units = Array(line.utf16), sep = Array(separator.utf16)
        guard !sep.isEmpty else { return [line] }
        var fields: [String] = [], start = 0, i = 0
        while i + sep.count <= units.count {
            if units[i..<(i + sep.count)].elementsEqual(sep) {
                fields.append(String(decoding: units[start..<i], as: UTF16.self))
                i += sep.count
                start = i
            } else {
                i += 1
            }
        }
        fields.append(String(decoding: units[start...], as: UTF16.self))
        return fields
    }
}
