package com.google.mlkit.vision.pose;

import java.util.List;

/** Stub of ML Kit's Pose: its landmarks, none when no pose was found. */
public class Pose {
  private final List<PoseLandmark> landmarks;

  public Pose(List<PoseLandmark> landmarks) {
    this.landmarks = landmarks;
  }

  public List<PoseLandmark> getAllPoseLandmarks() {
    return landmarks;
  }
}
