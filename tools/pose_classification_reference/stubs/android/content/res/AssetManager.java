package android.content.res;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Stub: an asset is a file under a folder. */
public class AssetManager {
  private final String folder;

  public AssetManager(String folder) {
    this.folder = folder;
  }

  public InputStream open(String name) throws IOException {
    return new FileInputStream(folder + "/" + name);
  }
}
