// Stand-in for Apple's CoreMedia (tools/apple_standins.sh; docs/packaging.md): only the names TasksVision and the
// guides' samples use, with the Swift signatures Apple's SDK gives them. Never linked or run. Like Apple's, it
// re-exports CoreVideo.
// Its C functions are @discardableResult, as Swift imports C functions.
@_exported import CoreVideo

private func standIn() -> Never { fatalError("Apple stand-in: for type-checking only") }

public final class CMSampleBuffer {}
public class CMFormatDescription {}
public typealias CMVideoFormatDescription = CMFormatDescription
public typealias CMTimeValue = Int64
public typealias CMTimeScale = Int32

public struct CMTime: Sendable {
    public init(value: CMTimeValue, timescale: CMTimeScale) { standIn() }
    public static var zero: CMTime { standIn() }
    public static var invalid: CMTime { standIn() }
}

public struct CMSampleTimingInfo: Sendable {
    public var duration: CMTime
    public var presentationTimeStamp: CMTime
    public var decodeTimeStamp: CMTime
    public init(duration: CMTime, presentationTimeStamp: CMTime, decodeTimeStamp: CMTime) { standIn() }
}

@discardableResult
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { standIn() }
@discardableResult
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { standIn() }
@discardableResult
public func CMVideoFormatDescriptionCreateForImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer,
    formatDescriptionOut: UnsafeMutablePointer<CMVideoFormatDescription?>) -> OSStatus { standIn() }
@discardableResult
public func CMSampleBufferCreateReadyWithImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer, formatDescription: CMVideoFormatDescription,
    sampleTiming: UnsafePointer<CMSampleTimingInfo>,
    sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus { standIn() }
