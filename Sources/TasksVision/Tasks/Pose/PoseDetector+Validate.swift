extension PoseDetector {
    /// Throws why the model could not be loaded, if it could not. As in ML Kit, `poseDetector(options:)` does not
    /// throw and every call reports a bad model; a caller that wants one error before its inputs asks here.
    public func validate() throws {
        _ = try loaded.get()
    }
}
