package android.media;

public class AudioManager {
  public static final int STREAM_NOTIFICATION = 5;
}
