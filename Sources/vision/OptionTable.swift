import Foundation

/// `--help` or `-h` was given: the text goes to stdout and the tool exits 0.
public struct HelpRequest: Error {
    public let text: String
}

/// The allowed values of a numeric option, checked when the option is parsed.
struct NumberRange {
    var minimum: Double?
    var minimumIncluded = true
    var maximum: Double?
    var integer = false

    /// Confidences and thresholds: [0, 1].
    static let unitInterval = NumberRange(minimum: 0, maximum: 1)
    /// Frame rates and the like: > 0.
    static let positive = NumberRange(minimum: 0, minimumIncluded: false)
    /// A whole number of at least `n`.
    static func atLeast(_ n: Int) -> NumberRange { NumberRange(minimum: Double(n), integer: true) }
    /// A whole number in `range`.
    static func whole(_ range: ClosedRange<Int>) -> NumberRange {
        NumberRange(minimum: Double(range.lowerBound), maximum: Double(range.upperBound), integer: true)
    }

    func contains(_ v: Double) -> Bool {
        if let lo = minimum, minimumIncluded ? v < lo : v <= lo { return false }
        if let hi = maximum, v > hi { return false }
        return true
    }

    /// As help and errors show it: "[0, 1]", "1...64", ">= 1", "> 0".
    var description: String {
        switch (minimum, maximum) {
        case let (lo?, hi?): return integer ? "\(OptionSpec.format(lo))...\(OptionSpec.format(hi))"
            : "\(minimumIncluded ? "[" : "(")\(OptionSpec.format(lo)), \(OptionSpec.format(hi))]"
        case let (lo?, nil): return "\(minimumIncluded ? ">=" : ">") \(OptionSpec.format(lo))"
        case let (nil, hi?): return "<= \(OptionSpec.format(hi))"
        case (nil, nil): return "any"
        }
    }
}

/// One option of a command: its name, the value it takes, its default and a line of help.
/// Parsing, range checks, usage lines and `--help` are all generated from these.
struct OptionSpec {
    enum Value {
        /// No value: present or not.
        case flag
        /// A number, range-checked; the default (if any) is a number too.
        case number(NumberRange, default: Double?)
        /// One of fixed words.
        case choice([String], default: String?)
        /// Free text checked by `valid` (which returns why a value is refused, or nil).
        case text(valid: ((String) -> String?)?)
    }

    let name: String
    /// What the value is called in usage lines: X, N, M, DIR.
    let placeholder: String
    let value: Value
    /// The default as help shows it, when it is not a plain number or word (e.g. "off", "all frames").
    let defaultNote: String?
    let help: String
    /// May be given several times (`--input A --input B`); otherwise the last one counts.
    var repeatable = false
    /// Must be given (usage shows it without brackets).
    var required = false
    /// Applies to video input (--video, live streams) only: refused on photos.
    var videoOnly = false

    /// This option, refused on photos (`FrameInput` names it: "--smooth applies to --video input, not to images").
    func forVideoOnly() -> OptionSpec {
        var spec = self
        spec.videoOnly = true
        return spec
    }

    static func flag(_ name: String, _ help: String, default note: String = "off") -> OptionSpec {
        OptionSpec(name: name, placeholder: "", value: .flag, defaultNote: note, help: help)
    }

    static func number(_ name: String, _ placeholder: String, _ range: NumberRange, default value: Double?,
                       note: String? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, placeholder: placeholder, value: .number(range, default: value), defaultNote: note,
                   help: help)
    }

    static func choice(_ name: String, _ words: [String], default word: String?, note: String? = nil,
                       _ help: String) -> OptionSpec {
        OptionSpec(name: name, placeholder: words.joined(separator: "|"), value: .choice(words, default: word),
                   defaultNote: note, help: help)
    }

    static func text(_ name: String, _ placeholder: String, default note: String, repeatable: Bool = false,
                     valid: ((String) -> String?)? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, placeholder: placeholder, value: .text(valid: valid), defaultNote: note, help: help,
                   repeatable: repeatable)
    }

    /// A text option that must be given.
    static func required(_ name: String, _ placeholder: String, repeatable: Bool = false,
                         _ help: String) -> OptionSpec {
        OptionSpec(name: name, placeholder: placeholder, value: .text(valid: nil), defaultNote: "none, required",
                   help: help, repeatable: repeatable, required: true)
    }

    /// As usage lines show it: "[--fps X]", "--output DIR", "--input F.npy...".
    var usageWord: String {
        let word = name + (takesValue ? " " + placeholder : "") + (repeatable ? "..." : "")
        return required ? word : "[\(word)]"
    }

    var takesValue: Bool { if case .flag = value { return false } else { return true } }

    /// The default as `--help` prints it.
    var defaultText: String {
        if let note = defaultNote { return note }
        switch value {
        case .number(_, let d?): return Self.format(d)
        case .choice(_, let w?): return w
        default: return "none"
        }
    }

    /// Refuses a value that is not of the option's kind or not in its range, naming option, value and range.
    func check(_ v: String) throws {
        switch value {
        case .flag: return
        case let .number(range, _):
            let kind = range.integer ? "a whole number" : "a number"
            guard let x = range.integer ? Int(v).map(Double.init) : Double(v), x.isFinite else {
                throw UsageError("\(name) takes \(kind) in \(range.description), got '\(v)'")
            }
            guard range.contains(x) else {
                throw UsageError("\(name) \(v) is out of range: allowed \(range.description)")
            }
        case let .choice(words, _):
            guard words.contains(v) else {
                throw UsageError("\(name) takes \(words.joined(separator: " or ")), got '\(v)'")
            }
        case let .text(valid):
            if let reason = valid?(v) { throw UsageError("\(name) '\(v)': \(reason)") }
        }
    }

    /// A number as help shows it: 0.5, 1, 30.3.
    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(format: "%g", d)
    }
}

/// A command's options: the one table its parsing, usage line and `--help` come from.
struct OptionTable {
    /// As typed after `vision`: "faces", "model run".
    let command: String
    /// One line on what the command does.
    let summary: String
    /// The positional arguments, one usage line each: ["PATH...", "--video DIR|FILE|/dev/videoN"].
    let positional: [String]
    let options: [OptionSpec]
    /// Options of other commands, with where they belong, for a better error than "unknown option".
    var elsewhere: [String: String] = [:]
    /// Options of this command alone that every other command names as this one's when given one.
    var ownOptions: [String] = []
    /// Lines after the option list (environment variables, notes).
    var notes: [String] = []

    func spec(_ name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// Other names of options: `-j` for `--jobs`, and the old names of the output option, which is `--out` in every
    /// command (`model run --output`, `models fetch --to`).
    static let aliases = ["-j": "--jobs", "--output": "--out", "--to": "--out"]

    /// The option `name` stands for in this table (itself when it is no alias of one of its options).
    func alias(_ name: String) -> String {
        guard spec(name) == nil, let target = Self.aliases[name], spec(target) != nil else { return name }
        return target
    }

    /// The usage line: every option (those a positional form names, such as --video, only there),
    /// then the positional forms, wrapped at 110 columns.
    var usage: String {
        let inPositional = options.filter { o in positional.contains { $0.hasPrefix(o.name + " ") } }.map(\.name)
        var words = options.filter { !inPositional.contains($0.name) }.map(\.usageWord)
        if positional.count > 1 {
            words.append("(" + positional.joined(separator: " | ") + ")")
        } else {
            words += positional
        }
        let lead = "usage: vision \(command) "
        return Self.wrap(words, lead: lead, indent: String(repeating: " ", count: lead.count)).joined(separator: "\n")
    }

    /// `vision <command> --help`: usage, summary, and each option with its default and description.
    var help: String {
        var out = [usage, "", summary, ""]
        if !options.isEmpty { out.append("options:") }
        let left = options.map { o in
            "  \(o.name)\(o.takesValue ? " " + o.placeholder : "")\(o.repeatable ? "..." : "")"
        }
        let width = min(40, (left.map(\.count).max() ?? 0) + 2)
        for (o, l) in zip(options, left) {
            let words = "\(o.help) (default: \(o.defaultText))".split(separator: " ").map(String.init)
            let indent = String(repeating: " ", count: width)
            // A name too long for the column gets a line of its own, its description below.
            if l.count + 2 > width { out.append(l) }
            let lead = l.count + 2 > width ? indent : l + String(repeating: " ", count: width - l.count)
            out += Self.wrap(words, lead: lead, indent: indent)
        }
        out.append("  -h, --help" + String(repeating: " ", count: max(2, width - 12)) + "print this help and exit")
        if !notes.isEmpty { out += [""] + notes }
        return out.joined(separator: "\n")
    }

    /// The brief form for `vision --help`: "[--threads N] [options] PATH...".
    var brief: String {
        let others = options.filter { $0.name != "--threads" }
        let text = (spec("--threads") != nil ? "[--threads N] " : "") + (others.isEmpty ? "" : "[options] ")
            + positional.joined(separator: " | ")
        return text.trimmingCharacters(in: .whitespaces)
    }

    static func wrap(_ words: [String], lead: String, indent: String, width: Int = 110) -> [String] {
        var lines: [String] = []
        var line = lead
        for w in words {
            if line.count + w.count > width && line.count > lead.count && line != indent {
                lines.append(String(line.dropLast()))
                line = indent
            }
            line += w + " "
        }
        lines.append(String(line.dropLast()))
        return lines
    }

    /// Parses `--name value`, `--name=value` and flags; every value is checked as it is read.
    /// A word not starting with `--` is positional; `-h`/`--help` anywhere asks for the help.
    func parse(_ args: [String]) throws -> ParsedOptions {
        var parsed = ParsedOptions(table: self)
        var i = 0
        while i < args.count {
            let a = args[i]
            i += 1
            if a == "--help" || a == "-h" { throw HelpRequest(text: help) }
            guard a.hasPrefix("-") && a.count > 1 else { parsed.positional.append(a); continue }
            var name = a, inline: String? = nil
            if let eq = a.firstIndex(of: "=") { name = String(a[..<eq]); inline = String(a[a.index(after: eq)...]) }
            name = alias(name)
            // A short option other than -h and the aliases is named as an option, not taken for a file (./-x is one).
            if !name.hasPrefix("--") {
                throw UsageError("unknown option '\(name)' for 'vision \(command)' (see vision \(command) --help)")
            }
            guard let spec = spec(name) else {
                if let owner = elsewhere[name] ?? Commands.owner(ofOption: name, except: command) {
                    throw UsageError("\(name) is an option of '\(owner)', not of 'vision \(command)'")
                }
                throw UsageError("unknown option '\(name)' for 'vision \(command)' (see vision \(command) --help)")
            }
            guard spec.takesValue else {
                if inline != nil { throw UsageError("option \(name) takes no value") }
                parsed.flags.insert(name)
                continue
            }
            // The next word is the value even if it starts with '-' (negative numbers).
            guard let v = inline ?? (i < args.count ? args[i] : nil) else {
                throw UsageError("option \(name) needs a value")
            }
            if inline == nil { i += 1 }
            try spec.check(v)
            if spec.repeatable { parsed.values[name, default: []].append(v) } else { parsed.values[name] = [v] }
        }
        if let missing = options.first(where: { $0.required && parsed.values[$0.name] == nil }) {
            throw UsageError("\(missing.name) \(missing.placeholder) is required (see vision \(command) --help)")
        }
        return parsed
    }
}

/// Options as given on one command line, each value already checked against its spec.
struct ParsedOptions {
    let table: OptionTable
    var positional: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func isSet(_ name: String) -> Bool { values[name] != nil || flags.contains(name) }
    /// The value given, if any (the last one for a repeated option).
    func string(_ name: String) -> String? { values[name]?.last }
    func strings(_ name: String) -> [String] { values[name] ?? [] }

    /// A numeric option's value, or its default; nil when neither exists.
    func number(_ name: String) throws -> Double? {
        guard let spec = table.spec(name), case let .number(_, d) = spec.value else {
            throw UsageError("internal: '\(name)' is not a numeric option of 'vision \(table.command)'")
        }
        // Checked when parsed, so the conversion succeeds.
        return string(name).flatMap(Double.init) ?? d
    }

    /// A numeric option that has a default.
    func double(_ name: String) throws -> Double {
        guard let v = try number(name) else { throw UsageError("\(name) is required") }
        return v
    }

    func float(_ name: String) throws -> Float { Float(try double(name)) }
    func int(_ name: String) throws -> Int { Int(try double(name)) }

    /// A choice option's value, or its default.
    func choice(_ name: String) -> String? {
        if let v = string(name) { return v }
        if let spec = table.spec(name), case let .choice(_, d) = spec.value { return d }
        return nil
    }

    /// A comma-separated list ("A,B" -> ["A", "B"]).
    func list(_ name: String) -> [String] {
        string(name).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
    }
}
