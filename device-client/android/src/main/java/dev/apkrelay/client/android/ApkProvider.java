package dev.apkrelay.client.android;

import android.content.ContentProvider;
import android.content.ContentValues;
import android.database.Cursor;
import android.database.MatrixCursor;
import android.net.Uri;
import android.os.ParcelFileDescriptor;
import android.provider.OpenableColumns;
import java.io.File;
import java.io.FileNotFoundException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The read-only provider behind APPLY's {@code uri}: {@code content://<application package>/<file>}
 * serves only the downloaded updates ({@code update-<md5>.apk}) from the library's private
 * directory. The library's own class, not androidx's FileProvider (which would collide with the
 * host app's in manifest merging); declared in the AAR manifest with authorities
 * {@code ${applicationId}}, not exported, granting uri permissions.
 */
public final class ApkProvider extends ContentProvider {
  public static final String MIME = "application/vnd.android.package-archive";
  private static final Pattern NAME = Pattern.compile("update-[0-9a-f]{32}\\.apk");

  /** The uri APPLY carries for {@code file} (a path in the library's directory). */
  public static Uri uriFor(String authority, String file) {
    return new Uri.Builder().scheme("content").authority(authority).appendPath(new File(file).getName()).build();
  }

  /** The library's directory: the app's no-backup files, as Client.start stores them. */
  public static File directory(File noBackupFilesDir) {
    return new File(noBackupFilesDir, "apkrelay");
  }

  @Override
  public boolean onCreate() {
    return true;
  }

  private File file(Uri uri) throws FileNotFoundException {
    List<String> path = uri.getPathSegments();
    if (path.size() != 1 || !NAME.matcher(path.get(0)).matches()) throw new FileNotFoundException("no such update: " + uri);
    File f = new File(directory(getContext().getNoBackupFilesDir()), path.get(0));
    if (!f.isFile()) throw new FileNotFoundException("no such update: " + uri);
    return f;
  }

  @Override
  public ParcelFileDescriptor openFile(Uri uri, String mode) throws FileNotFoundException {
    if (!"r".equals(mode)) throw new SecurityException("the update provider is read-only");
    return ParcelFileDescriptor.open(file(uri), ParcelFileDescriptor.MODE_READ_ONLY);
  }

  @Override
  public Cursor query(Uri uri, String[] projection, String selection, String[] args, String sortOrder) {
    File f;
    try {
      f = file(uri);
    } catch (FileNotFoundException e) {
      return null;
    }
    MatrixCursor c = new MatrixCursor(new String[] {OpenableColumns.DISPLAY_NAME, OpenableColumns.SIZE}, 1);
    c.addRow(new Object[] {f.getName(), f.length()});
    return c;
  }

  @Override
  public String getType(Uri uri) {
    return MIME;
  }

  @Override
  public Uri insert(Uri uri, ContentValues values) {
    throw new SecurityException("the update provider is read-only");
  }

  @Override
  public int delete(Uri uri, String selection, String[] args) {
    throw new SecurityException("the update provider is read-only");
  }

  @Override
  public int update(Uri uri, ContentValues values, String selection, String[] args) {
    throw new SecurityException("the update provider is read-only");
  }
}
