import Foundation
import TasksVisionFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A dataset's hands as CSV, one row per hand, so landmarks can be found once and trained on
/// many times, or made by another tool:
///
///     label,source,image_width,image_height,handedness,handedness_score,x0,y0,z0,...,z20,wx0,...,wz20
///
/// Floats are written in the shortest form that reads back to the same float32. A field with a
/// comma, quote or line break is quoted, quotes doubled (RFC 4180).
public enum GestureLandmarksCSV {
    public static let header: [String] = ["label", "source", "image_width", "image_height", "handedness",
                                          "handedness_score"]
        + (0..<21).flatMap { ["x\($0)", "y\($0)", "z\($0)"] } + (0..<21).flatMap { ["wx\($0)", "wy\($0)", "wz\($0)"] }

    /// The CSV text of a dataset.
    public static func text(_ dataset: GestureDataset) -> String {
        var lines = [header.joined(separator: ",")]
        for s in dataset.samples {
            let h = s.hand
            var fields = [dataset.labels[s.label], s.source, String(h.imageWidth), String(h.imageHeight),
                          h.handedness, "\(h.handednessScore)"]
            fields += (h.landmarks + h.worldLandmarks).flatMap { ["\($0.x)", "\($0.y)", "\($0.z)"] }
            lines.append(fields.map(quote).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the CSV to a temporary file beside `path`, then renames it into place.
    public static func write(_ dataset: GestureDataset, to path: String) throws {
        try TrainingFile.write(Array(text(dataset).utf8), to: path)
    }

    /// A dataset from CSV text (`name` for messages); rows keep their order.
    public static func dataset(text: String, name: String) throws -> GestureDataset {
        let rows = try parse(text, name: name)
        guard let first = rows.first, first == header else {
            throw TrainingError.invalidSample("\(name): the first line is not the landmarks CSV header "
                                              + "(label,source,image_width,...; see 'vision gestures landmarks')")
        }
        var hands: [(label: String, hand: GestureHand, source: String)] = []
        for (r, row) in rows.enumerated().dropFirst() {
            if row == [""] { continue }
            let line = "\(name) line \(r + 1)"
            guard row.count == header.count else {
                throw TrainingError.invalidSample("\(line) has \(row.count) fields, expected \(header.count)")
            }
            func number<T: LosslessStringConvertible>(_ i: Int, _ type: T.Type) throws -> T {
                guard let v = T(row[i].trimmingCharacters(in: .whitespaces)) else {
                    throw TrainingError.invalidSample("\(line): \(header[i]) '\(row[i])' is not a number")
                }
                return v
            }
            var floats: [Float] = []
            for i in 6..<header.count {
                let v = try number(i, Float.self)
                guard v.isFinite else { throw TrainingError.invalidSample("\(line): \(header[i]) is not finite") }
                floats.append(v)
            }
            let w = try number(2, Int.self), h = try number(3, Int.self)
            guard w > 0, h > 0 else { throw TrainingError.invalidSample("\(line): image size \(w)x\(h)") }
            let points = stride(from: 0, to: floats.count, by: 3).map { SIMD3(floats[$0], floats[$0 + 1],
                                                                              floats[$0 + 2]) }
            guard !row[0].isEmpty else { throw TrainingError.invalidSample("\(line): empty label") }
            hands.append((row[0], GestureHand(landmarks: Array(points[0..<21]), worldLandmarks: Array(points[21...]),
                                              handedness: row[4], handednessScore: try number(5, Float.self),
                                              imageWidth: w, imageHeight: h), row[1]))
        }
        if hands.isEmpty { throw TrainingError.invalidDataset("\(name) has no rows") }
        let labels = try GestureDataset.orderedLabels(Array(Set(hands.map(\.label))))
        let index = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        return try GestureDataset(labels: labels, samples: hands.map {
            GestureDataset.Sample(label: index[$0.label] ?? 0, hand: $0.hand, source: $0.source)
        })
    }

    /// A dataset from a CSV file.
    public static func dataset(path: String) throws -> GestureDataset {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrainingError.invalidDataset("\(path): cannot read the landmarks CSV (no such file, or unreadable)")
        }
        return try dataset(text: String(decoding: data, as: UTF8.self), name: path)
    }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Rows of fields (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks).
    static func parse(_ text: String, name: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false, wasQuoted = false
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" {
                        chars.removeFirst()
                        field.unicodeScalars.append(c)
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" && field.isEmpty && !wasQuoted {
                quoted = true; wasQuoted = true
            } else if c == "," {
                row.append(field); field = ""; wasQuoted = false
            } else if c == "\n" || c == "\r" {
                if c == "\r" && chars.first == "\n" { chars.removeFirst() }
                row.append(field); rows.append(row); row = []; field = ""; wasQuoted = false
            } else {
                field.unicodeScalars.append(c)
            }
        }
        if quoted { throw TrainingError.invalidSample("\(name): a quoted field is not closed") }
        if !field.isEmpty || !row.isEmpty || wasQuoted { row.append(field); rows.append(row) }
        return rows
    }
}

/// Writing a file without leaving half of it behind (`AtomicFile`), with the training's checks and errors.
enum TrainingFile {
    static func write(_ bytes: [UInt8], to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TrainingError.unwritable(path: path, reason: "folder \(folder) does not exist")
        }
        var d: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &d), d.boolValue {
            throw TrainingError.unwritable(path: path, reason: "is a folder")
        }
        do {
            try AtomicFile.write(path) { temporary in
                guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
                    throw TrainingError.unwritable(path: path, reason: "cannot create a file in \(folder) "
                                                   + "(permission denied or disk full)")
                }
            }
        } catch let error as AtomicFile.RenameError {
            throw TrainingError.unwritable(path: path, reason: error.reason)
        }
    }
}
