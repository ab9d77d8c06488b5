package androidx.appcompat.app;

/**
 * Compile-time stand-in for androidx's AppCompatActivity, the return type of cordova-android's
 * CordovaInterface.getActivity(). androidx is not on the class path here; the bridge only uses
 * it as an android.app.Activity. Never packaged: an app gets the real class from cordova-android.
 */
public class AppCompatActivity extends android.app.Activity {}
