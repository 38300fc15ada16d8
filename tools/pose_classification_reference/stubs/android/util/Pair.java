package android.util;

/** Stub of android.util.Pair: two public final fields. */
public class Pair<F, S> {
  public final F first;
  public final S second;

  public Pair(F first, S second) {
    this.first = first;
    this.second = second;
  }
}
