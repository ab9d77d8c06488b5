package dev.apkrelay.demo;

import android.app.Activity;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.os.Bundle;
import android.widget.TextView;
import dev.apkrelay.client.Client;

/** One screen showing the running version; tells the library which activity is current. */
public class MainActivity extends Activity {
  @Override
  protected void onCreate(Bundle state) {
    super.onCreate(state);
    TextView text = new TextView(this);
    String version;
    try {
      PackageInfo info = getPackageManager().getPackageInfo(getPackageName(), 0);
      version = info.versionName;
    } catch (PackageManager.NameNotFoundException e) {
      version = "?";
    }
    text.setText("apkrelay demo " + version);
    setContentView(text);
  }

  @Override
  protected void onResume() {
    super.onResume();
    Client.setCurrentActivity(this);
  }

  @Override
  protected void onPause() {
    Client.setCurrentActivity(null);
    super.onPause();
  }
}
