import Foundation
import TasksVision

/// ML Kit's "pose classification tips": the angle at a landmark between two others.
public enum PoseAngle {
    /// The angle at `mid` between `first` and `last` in degrees, in [0, 180], measured in 2-D
    /// (x, y) as ML Kit's `getAngle` does: the difference of two `atan2`s, its magnitude, and
    /// 360 minus it when over 180.
    public static func angle(first: PointF3D, mid: PointF3D, last: PointF3D) -> Double {
        var result = (atan2(Double(last.y - mid.y), Double(last.x - mid.x))
            - atan2(Double(first.y - mid.y), Double(first.x - mid.x))) * (180 / Double.pi)
        result = abs(result)
        if result > 180 { result = 360.0 - result }
        return result
    }

    /// The angle at `mid` between `first` and `last` of an ML Kit pose, in degrees.
    public static func angle(_ pose: Pose, first: PoseLandmarkType, mid: PoseLandmarkType,
                             last: PoseLandmarkType) -> Double {
        func point(_ t: PoseLandmarkType) -> PointF3D {
            let p = pose.landmark(ofType: t).position
            return PointF3D(x: Float(p.x), y: Float(p.y), z: Float(p.z))
        }
        return angle(first: point(first), mid: point(mid), last: point(last))
    }
}
