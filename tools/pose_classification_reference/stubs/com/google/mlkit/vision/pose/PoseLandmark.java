package com.google.mlkit.vision.pose;

import com.google.mlkit.vision.common.PointF3D;

/** Stub of ML Kit's PoseLandmark: its type constants and 3-D position. */
public class PoseLandmark {
  public static final int NOSE = 0;
  public static final int LEFT_SHOULDER = 11;
  public static final int RIGHT_SHOULDER = 12;
  public static final int LEFT_ELBOW = 13;
  public static final int RIGHT_ELBOW = 14;
  public static final int LEFT_WRIST = 15;
  public static final int RIGHT_WRIST = 16;
  public static final int LEFT_HIP = 23;
  public static final int RIGHT_HIP = 24;
  public static final int LEFT_KNEE = 25;
  public static final int RIGHT_KNEE = 26;
  public static final int LEFT_ANKLE = 27;
  public static final int RIGHT_ANKLE = 28;

  private final int type;
  private final PointF3D position3D;

  public PoseLandmark(int type, PointF3D position3D) {
    this.type = type;
    this.position3D = position3D;
  }

  public int getLandmarkType() {
    return type;
  }

  public PointF3D getPosition3D() {
    return position3D;
  }
}
