/// MediaPipe's `AlignHandToPoseInWorldCalculator` (calculators/util): a hand's world landmarks moved so
/// that its wrist lies on the pose's wrist in the pose's world coordinates (metres, hips as origin).
public enum AlignHandToPoseInWorld {
    /// `hand` translated by the pose's wrist minus the hand's wrist; `hand` unchanged when either index is
    /// out of range.
    public static func align(_ hand: [Landmark], pose: [Landmark], handWrist: Int = 0, poseWrist: Int) -> [Landmark] {
        guard hand.indices.contains(handWrist), pose.indices.contains(poseWrist) else { return hand }
        let h = hand[handWrist], p = pose[poseWrist]
        return hand.map { lm in
            var out = lm
            out.x = lm.x - h.x + p.x
            out.y = lm.y - h.y + p.y
            out.z = lm.z - h.z + p.z
            return out
        }
    }
}
