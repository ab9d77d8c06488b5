package androidx.webkit;

/**
 * Compile-time stand-in for androidx.webkit's WebViewAssetLoader, named by cordova-android's
 * CordovaPluginPathHandler (which CordovaPlugin references). The bridge does not use it; never
 * packaged.
 */
public final class WebViewAssetLoader {
  private WebViewAssetLoader() {}

  public interface PathHandler {
    android.webkit.WebResourceResponse handle(String path);
  }
}
