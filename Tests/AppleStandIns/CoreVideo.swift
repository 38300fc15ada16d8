// Stand-in for Apple's CoreVideo (tools/apple_standins.sh; docs/packaging.md): only the names TasksVision and the
// guides' samples use, with the Swift signatures Apple's SDK gives them. Never linked or run. It also declares the
// few CoreFoundation and MacTypes names those use (OSType, OSStatus, CFAllocator), which Apple's Foundation gives and
// Linux's does not.
// Its C functions are @discardableResult, as Swift imports C functions.
@_exported import Foundation

private func standIn() -> Never { fatalError("Apple stand-in: for type-checking only") }

public typealias FourCharCode = UInt32
public typealias OSType = FourCharCode
public typealias OSStatus = Int32
public final class CFAllocator {}
public var kCFAllocatorDefault: CFAllocator! { nil }
public final class CFDictionary {}

public class CVBuffer {}
public typealias CVImageBuffer = CVBuffer
public typealias CVPixelBuffer = CVImageBuffer
public typealias CVReturn = Int32
public typealias CVOptionFlags = UInt64

public var kCVReturnSuccess: CVReturn { 0 }
public var kCVPixelFormatType_32BGRA: OSType { 0x4247_5241 }
public var kCVPixelFormatType_32RGBA: OSType { 0x5247_4241 }
public var kCVPixelFormatType_OneComponent32Float: OSType { 0x4C30_3066 }

public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    public let rawValue: CVOptionFlags
    public init(rawValue: CVOptionFlags) { self.rawValue = rawValue }
    public static let readOnly = CVPixelBufferLockFlags(rawValue: 1)
}

@discardableResult
public func CVPixelBufferCreate(_ allocator: CFAllocator?, _ width: Int, _ height: Int, _ pixelFormatType: OSType,
                                _ pixelBufferAttributes: CFDictionary?,
                                _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn { standIn() }
@discardableResult
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType { standIn() }
@discardableResult
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { standIn() }
@discardableResult
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { standIn() }
@discardableResult
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int { standIn() }
@discardableResult
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? { standIn() }
@discardableResult
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer,
                                         _ lockFlags: CVPixelBufferLockFlags) -> CVReturn { standIn() }
@discardableResult
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer,
                                           _ unlockFlags: CVPixelBufferLockFlags) -> CVReturn { standIn() }
