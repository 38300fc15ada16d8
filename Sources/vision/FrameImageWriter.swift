import Foundation
import TasksVision
import TasksVisionImageIO

/// A mask a task gives for a frame, written with `--masks DIR` as DIR/<name><suffix>.png: 8-bit gray, the
/// displayed image's size.
struct FrameMask {
    /// After the frame's name: "" for a task's one mask.
    var suffix = ""
    /// The gray pixels, row after row, for a displayed image of this width and height.
    let pixels: (_ width: Int, _ height: Int) -> [UInt8]

    /// The largest value of any of `masks` at each pixel, as 0-255 (rounded; 0 where none is). A mask of
    /// another size than the image is left out.
    static func largest(of masks: [Mask], suffix: String = "") -> FrameMask {
        FrameMask(suffix: suffix) { width, height in
            var pixels = [UInt8](repeating: 0, count: width * height)
            for mask in masks where mask.width == width && mask.height == height {
                for (i, v) in mask.float32Data.enumerated() {
                    pixels[i] = max(pixels[i], UInt8(min(max(v, 0), 1) * 255 + 0.5))
                }
            }
            return pixels
        }
    }
}

/// Writes the pictures the command line makes of a frame, overlays and masks alike: a PNG named after the
/// frame in a folder (made if missing), whole or not at all (`OutputFile`).
enum FrameImageWriter {
    /// `--masks DIR`, checked before any input is read: files must be writable there.
    static func check(_ options: ParsedOptions) throws {
        if let folder = options.string("--masks") {
            try OutputFile.checkWritable(directory: folder, option: "--masks")
        }
    }

    /// Writes `image` as folder/<frame's stem><suffix>.png.
    static func write(_ image: DecodedImage, into folder: String, for frame: Frame, suffix: String = "") throws {
        try OutputFile.makeFolder(folder)
        try OutputFile.write(folder + "/" + frame.stem + suffix + ".png") { try ImageFile.writePNG(image, to: $0) }
    }

    /// Writes a frame's masks into the `--masks` folder, if the options give one.
    static func writeMasks(_ masks: [FrameMask], of frame: Frame, _ image: MPImage, options: ParsedOptions) throws {
        guard let folder = options.string("--masks") else { return }
        for mask in masks {
            let gray = DecodedImage(width: image.width, height: image.height, channels: 1,
                                    pixels: mask.pixels(image.width, image.height))
            try write(gray, into: folder, for: frame, suffix: mask.suffix)
        }
    }
}
