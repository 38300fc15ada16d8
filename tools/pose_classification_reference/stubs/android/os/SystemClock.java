package android.os;

/** Stub: a clock the driver sets, so that EMASmoothing sees each frame's timestamp. */
public final class SystemClock {
  public static long now = 0;

  public static long elapsedRealtime() {
    return now;
  }
}
