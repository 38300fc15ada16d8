package com.google.mlkit.vision.common;

/** Stub of ML Kit's PointF3D: three floats. */
public abstract class PointF3D {
  public abstract float getX();

  public abstract float getY();

  public abstract float getZ();

  public static PointF3D from(final float x, final float y, final float z) {
    return new PointF3D() {
      @Override public float getX() { return x; }
      @Override public float getY() { return y; }
      @Override public float getZ() { return z; }
    };
  }
}
