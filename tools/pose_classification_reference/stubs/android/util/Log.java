package android.util;

/** Stub: errors to stderr. */
public final class Log {
  public static int e(String tag, String message) {
    System.err.println("E/" + tag + ": " + message);
    return 0;
  }
}
