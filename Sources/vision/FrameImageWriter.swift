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
/// frame in a folder (made if missing), or one photo's file (PNG or JPEG), whole or not at all (`OutputFile`).
enum FrameImageWriter {
    /// Writes `image` as folder/<frame's stem><suffix>.png.
    static func write(_ image: DecodedImage, into folder: String, for frame: Frame, suffix: String = "") throws {
        try OutputPath.makeFolder(folder)
        // Claimed by the frame's input: two inputs of one name are refused, not written over each other.
        let png = PNG.encode(width: image.width, height: image.height, channels: image.channels, pixels: image.pixels)
        try OutputFile.write(png, to: PathText.join(folder, frame.stem + suffix + ".png"), source: frame.file)
    }

    /// Writes `image` as the file `path`: JPEG (quality 90) or PNG.
    static func write(_ image: DecodedImage, to path: String, jpeg: Bool, for frame: Frame) throws {
        let bytes = jpeg ? JPEGEncoder.encode(image, quality: 90)
            : PNG.encode(width: image.width, height: image.height, channels: image.channels, pixels: image.pixels)
        try OutputFile.write(bytes, to: path, source: frame.file)
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
