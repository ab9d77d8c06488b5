package dev.apkrelay.client.android;

import android.content.pm.PackageInstaller;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.robolectric.annotation.Implementation;
import org.robolectric.annotation.Implements;
import org.robolectric.shadows.ShadowPackageInstaller;

/**
 * Robolectric's PackageInstaller shadow, keeping the SessionParams each session was created with:
 * the shadow accepts any parameters and keeps none, so a test must read them itself.
 */
@Implements(PackageInstaller.class)
public class RecordingPackageInstaller extends ShadowPackageInstaller {
  static final List<PackageInstaller.SessionParams> CREATED = new ArrayList<>();

  @Implementation
  @Override
  protected int createSession(PackageInstaller.SessionParams params) throws IOException {
    CREATED.add(params);
    return super.createSession(params);
  }
}
