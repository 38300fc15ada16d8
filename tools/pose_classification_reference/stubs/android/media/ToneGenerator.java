package android.media;

/** Stub: silent. */
public class ToneGenerator {
  public static final int TONE_PROP_BEEP = 24;

  public ToneGenerator(int streamType, int volume) {}

  public boolean startTone(int toneType) {
    return true;
  }
}
