import Foundation

/// Reading and writing image files by content (PNG or JPEG).
public enum ImageFile {
    public static func decode(_ bytes: [UInt8], name: String) throws -> DecodedImage {
        if PNG.isPNG(bytes) { return try PNG.decode(bytes, name: name) }
        if JPEG.isJPEG(bytes) { return try JPEG.decode(bytes, name: name) }
        throw ImageIOError.unsupported(file: name, reason: "not a PNG or JPEG file")
    }

    public static func read(_ path: String) throws -> DecodedImage {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ImageIOError.unreadable(file: path, reason: "no such file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageIOError.unreadable(file: path, reason: "permission denied or read error")
        }
        return try decode([UInt8](data), name: path)
    }

    public static func writePNG(_ image: DecodedImage, to path: String) throws {
        let bytes = PNG.encode(width: image.width, height: image.height, channels: image.channels, pixels: image.pixels)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
