import Foundation
import TasksVision
import TasksVisionImageIO

/// A picture of the displayed image to draw results on, written as PNG.
struct Overlay {
    var width: Int, height: Int
    var pixels: [UInt8]  // RGB

    /// The image as displayed (orientation applied).
    init(_ image: MPImage) {
        width = image.width; height = image.height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        let pw = Float(image.pixelWidth), ph = Float(image.pixelHeight)
        let whole = RotatedRect(centerX: pw / 2, centerY: ph / 2, width: pw, height: ph, rotation: 0)
        let rgb = ImageToTensor.warp(image.withOrientation(.up), roi: whole,
                                     width: image.pixelWidth, height: image.pixelHeight, border: .replicate)
        for y in 0..<height {
            for x in 0..<width {
                let display = (x: (Float(x) + 0.5) / Float(width), y: (Float(y) + 0.5) / Float(height))
                let s = image.orientation.storedPoint(fromDisplay: display)
                let sx = min(image.pixelWidth - 1, max(0, Int(s.x * Float(image.pixelWidth))))
                let sy = min(image.pixelHeight - 1, max(0, Int(s.y * Float(image.pixelHeight))))
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = rgb[(sy * image.pixelWidth + sx) * 3 + c] }
            }
        }
    }

    mutating func set(_ x: Int, _ y: Int, _ color: (UInt8, UInt8, UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let o = (y * width + x) * 3
        pixels[o] = color.0; pixels[o + 1] = color.1; pixels[o + 2] = color.2
    }

    var thickness: Int { max(1, min(width, height) / 300) }

    /// Whether pixel coordinates can be drawn: a model's landmark may be NaN or far outside the image, where `Int(x)`
    /// would trap or a line take billions of steps.
    static func drawable(_ values: Float...) -> Bool { values.allSatisfy { $0.isFinite && abs($0) < 1e6 } }

    /// A line `width` pixels wide (the image's `thickness` when 0).
    mutating func line(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float, _ color: (UInt8, UInt8, UInt8),
                       width: Int = 0) {
        Self.trace(x0, y0, x1, y1, width: width > 0 ? width : thickness) { set($0, $1, color) }
    }

    /// The pixels of a line `width` wide (exactly: a brush from -(width-1)/2 to width/2), each given to `body`.
    static func trace(_ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float, width: Int, _ body: (Int, Int) -> Void) {
        guard drawable(x0, y0, x1, y1) else { return }
        let steps = Int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        let w = max(1, width)
        for i in 0...steps {
            let f = Float(i) / Float(steps)
            let x = Int(x0 + (x1 - x0) * f), y = Int(y0 + (y1 - y0) * f)
            for dy in -(w - 1) / 2...w / 2 { for dx in -(w - 1) / 2...w / 2 { body(x + dx, y + dy) } }
        }
    }

    /// Lines blended over the picture: each pixel they cover, however many of them do, mixed once with `color`
    /// by `alpha`, so a dense mesh leaves the picture visible under it.
    mutating func blendedLines(_ segments: [(Float, Float, Float, Float)], _ color: (UInt8, UInt8, UInt8),
                               width lineWidth: Int, alpha: Float) {
        let (w, h) = (width, height)
        var covered = [Bool](repeating: false, count: w * h)
        for s in segments {
            Self.trace(s.0, s.1, s.2, s.3, width: lineWidth) { x, y in
                if x >= 0, y >= 0, x < w, y < h { covered[y * w + x] = true }
            }
        }
        let target = [Float(color.0), Float(color.1), Float(color.2)]
        for i in covered.indices where covered[i] {
            for c in 0..<3 {
                let v = Float(pixels[3 * i + c])
                pixels[3 * i + c] = UInt8(min(255, max(0, (v + (target[c] - v) * alpha).rounded())))
            }
        }
    }

    mutating func rect(_ r: CGRect, _ color: (UInt8, UInt8, UInt8)) {
        let x0 = Float(r.minX), y0 = Float(r.minY), x1 = Float(r.maxX), y1 = Float(r.maxY)
        line(x0, y0, x1, y0, color); line(x1, y0, x1, y1, color)
        line(x1, y1, x0, y1, color); line(x0, y1, x0, y0, color)
    }

    mutating func dot(_ x: Float, _ y: Float, _ color: (UInt8, UInt8, UInt8)) {
        guard Self.drawable(x, y) else { return }
        let r = 2 * thickness + 1
        for dy in -r...r { for dx in -r...r where dx * dx + dy * dy <= r * r { set(Int(x) + dx, Int(y) + dy, color) } }
    }

    /// 3x5 glyphs for digits, '.', '#', letters, enough for scores and labels.
    static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 7, 1, 7], "4": [5, 5, 7, 1, 1],
        "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 1, 1, 1], "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7],
        ".": [0, 0, 0, 0, 2], " ": [0, 0, 0, 0, 0], "-": [0, 0, 7, 0, 0], "_": [0, 0, 0, 0, 7], "#": [5, 7, 5, 7, 5],
        "A": [2, 5, 7, 5, 5], "B": [6, 5, 6, 5, 6], "C": [7, 4, 4, 4, 7], "D": [6, 5, 5, 5, 6], "E": [7, 4, 6, 4, 7],
        "F": [7, 4, 6, 4, 4], "G": [7, 4, 5, 5, 7], "H": [5, 5, 7, 5, 5], "I": [7, 2, 2, 2, 7], "J": [1, 1, 1, 5, 7],
        "K": [5, 5, 6, 5, 5], "L": [4, 4, 4, 4, 7], "M": [5, 7, 7, 5, 5], "N": [6, 5, 5, 5, 5], "O": [7, 5, 5, 5, 7],
        "P": [7, 5, 7, 4, 4], "Q": [7, 5, 5, 7, 1], "R": [7, 5, 6, 5, 5], "S": [7, 4, 7, 1, 7], "T": [7, 2, 2, 2, 2],
        "U": [5, 5, 5, 5, 7], "V": [5, 5, 5, 5, 2], "W": [5, 5, 7, 7, 5], "X": [5, 5, 2, 5, 5], "Y": [5, 5, 2, 2, 2],
        "Z": [7, 1, 2, 4, 7],
    ]

    mutating func text(_ s: String, _ x: Float, _ y: Float, _ color: (UInt8, UInt8, UInt8)) {
        guard Self.drawable(x, y) else { return }
        let scale = max(2, min(width, height) / 200)
        var cx = Int(x)
        for ch in s.uppercased() {
            if let g = Self.glyphs[ch] {
                for (row, bits) in g.enumerated() {
                    for col in 0..<3 where bits & (4 >> col) != 0 {
                        for dy in 0..<scale {
                            for dx in 0..<scale { set(cx + col * scale + dx, Int(y) + row * scale + dy, color) }
                        }
                    }
                }
            }
            cx += 4 * scale
        }
    }

    /// The drawing as an RGB image, for `FrameImageWriter`.
    var image: DecodedImage { DecodedImage(width: width, height: height, channels: 3, pixels: pixels) }

    /// Detections' boxes (green) and keypoints (red).
    mutating func draw(_ detections: [Detection]) {
        let W = Float(width), H = Float(height)
        for d in detections {
            rect(d.boundingBox, (0, 255, 0))
            for k in d.keypoints ?? [] { dot(Float(k.location.x) * W, Float(k.location.y) * H, (255, 0, 0)) }
        }
    }

    /// A summary line of detections: "2 faces: [126,100 463x463] 0.97 ...".
    static func summary(_ detections: [Detection], noun: String) -> String {
        let boxes = detections.map { d in
            let b = d.boundingBox
            return String(format: "[%.0f,%.0f %.0fx%.0f] %.2f", b.minX, b.minY, b.width, b.height,
                          d.categories.first?.score ?? 0)
        }
        let n = detections.count
        return "\(n) \(noun)\(n == 1 ? "" : "s")" + (boxes.isEmpty ? "" : ": " + boxes.joined(separator: " "))
    }
}
