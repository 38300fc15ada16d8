// java.lang.Float.parseFloat's grammar: surrounding characters up to U+0020 trimmed; an optional
// sign; "NaN", "Infinity", a decimal number with optional exponent, or a hexadecimal one with a
// binary exponent; an optional f, F, d or D after a number. The value is the float nearest the text
// (correctly rounded, as Java's FloatingDecimal does).
enum JavaFloatParser {
    static func parse(_ text: String) -> Float? {
        var s = Substring(text)
        while let c = s.utf8.first, c <= 0x20 { s = s.dropFirst() }
        while let c = s.utf8.last, c <= 0x20 { s = s.dropLast() }
        var body = Array(s.utf8)
        guard !body.isEmpty else { return nil }
        var negative = false
        if body[0] == UInt8(ascii: "+") || body[0] == UInt8(ascii: "-") {
            negative = body[0] == UInt8(ascii: "-")
            body.removeFirst()
        }
        if body == Array("NaN".utf8) { return .nan }
        if body == Array("Infinity".utf8) { return negative ? -.infinity : .infinity }
        if let last = body.last, "fFdD".utf8.contains(last) { body.removeLast() }
        guard !body.isEmpty else { return nil }
        let isHex = body.count > 2 && body[0] == UInt8(ascii: "0") && (body[1] | 0x20) == UInt8(ascii: "x")
        guard isHex ? validHex(Array(body.dropFirst(2))) : validDecimal(body) else { return nil }
        guard let magnitude = Float(String(decoding: body, as: UTF8.self)) else { return nil }
        return negative ? -magnitude : magnitude
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        isDigit(c) || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "f"))
    }

    /// digits [. digits] or . digits, then optionally e|E [sign] digits.
    private static func validDecimal(_ b: [UInt8]) -> Bool {
        var i = 0, mantissaDigits = 0
        while i < b.count, isDigit(b[i]) { i += 1; mantissaDigits += 1 }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, isDigit(b[i]) { i += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { return false }
        if i == b.count { return true }
        guard b[i] | 0x20 == UInt8(ascii: "e") else { return false }
        i += 1
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        let start = i
        while i < b.count, isDigit(b[i]) { i += 1 }
        return i > start && i == b.count
    }

    /// hexdigits [. hexdigits] or . hexdigits, then p|P [sign] digits (the exponent is required).
    private static func validHex(_ b: [UInt8]) -> Bool {
        var i = 0, mantissaDigits = 0
        while i < b.count, isHexDigit(b[i]) { i += 1; mantissaDigits += 1 }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, isHexDigit(b[i]) { i += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0, i < b.count, b[i] | 0x20 == UInt8(ascii: "p") else { return false }
        i += 1
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        let start = i
        while i < b.count, isDigit(b[i]) { i += 1 }
        return i > start && i == b.count
    }
}
