// tools/apple_standins.sh builds this target with TASKSVISION_APPLE_STANDINS defined and the stand-ins of Apple's
// modules on the import path: if they were not found, the Apple-only samples would be skipped in silence.
#if TASKSVISION_APPLE_STANDINS
#if !(canImport(UIKit) && canImport(CoreGraphics) && canImport(CoreVideo))
#error("the stand-in build does not see the stand-ins of UIKit, CoreGraphics or CoreVideo")
#endif
#if !(canImport(CoreMedia) && canImport(AVFoundation) && canImport(Accelerate))
#error("the stand-in build does not see the stand-ins of CoreMedia, AVFoundation or Accelerate")
#endif
#endif
