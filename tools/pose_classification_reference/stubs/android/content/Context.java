package android.content;

import android.content.res.AssetManager;

/** Stub: only the assets, read from a folder the driver names. */
public class Context {
  private final AssetManager assets;

  public Context(String assetsFolder) {
    assets = new AssetManager(assetsFolder);
  }

  public AssetManager getAssets() {
    return assets;
  }
}
