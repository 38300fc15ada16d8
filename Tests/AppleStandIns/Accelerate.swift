// Stand-in for Apple's Accelerate (tools/apple_standins.sh; docs/packaging.md): only the names TasksVision uses
// (PlatformBLAS's CBLAS calls, MPImage's vImage unpremultiplication), with the Swift signatures Apple's SDK gives
// them. Never linked or run.
// Its C functions are @discardableResult, as Swift imports C functions.
private func standIn() -> Never { fatalError("Apple stand-in: for type-checking only") }

public struct CBLAS_ORDER: Equatable, RawRepresentable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}
public struct CBLAS_TRANSPOSE: Equatable, RawRepresentable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}
public var CblasRowMajor: CBLAS_ORDER { CBLAS_ORDER(rawValue: 101) }
public var CblasNoTrans: CBLAS_TRANSPOSE { CBLAS_TRANSPOSE(rawValue: 111) }

public func cblas_sgemm(_ __Order: CBLAS_ORDER, _ __TransA: CBLAS_TRANSPOSE, _ __TransB: CBLAS_TRANSPOSE,
                        _ __M: Int32, _ __N: Int32, _ __K: Int32, _ __alpha: Float, _ __A: UnsafePointer<Float>!,
                        _ __lda: Int32, _ __B: UnsafePointer<Float>!, _ __ldb: Int32, _ __beta: Float,
                        _ __C: UnsafeMutablePointer<Float>!, _ __ldc: Int32) { standIn() }
public func cblas_saxpy(_ __N: Int32, _ __alpha: Float, _ __X: UnsafePointer<Float>!, _ __incX: Int32,
                        _ __Y: UnsafeMutablePointer<Float>!, _ __incY: Int32) { standIn() }

public typealias vImagePixelCount = UInt
public typealias vImage_Error = Int
public typealias vImage_Flags = UInt32
public var kvImageNoFlags: Int { 0 }
public var kvImageNoError: Int { 0 }

public struct vImage_Buffer {
    public var data: UnsafeMutableRawPointer!
    public var height: vImagePixelCount
    public var width: vImagePixelCount
    public var rowBytes: Int
    public init(data: UnsafeMutableRawPointer!, height: vImagePixelCount, width: vImagePixelCount, rowBytes: Int) {
        standIn()
    }
}

@discardableResult
public func vImageUnpremultiplyData_RGBA8888(_ src: UnsafePointer<vImage_Buffer>, _ dest: UnsafePointer<vImage_Buffer>,
                                             _ flags: vImage_Flags) -> vImage_Error { standIn() }
