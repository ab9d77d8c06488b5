package dev.apkrelay.client.core.delta;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Builds dfOld ("delta-friendly old", the delta contract's ARDELTA2): the installed APK read
 * sequentially into a private file, each of the plan's old ranges replaced by its inflated bytes
 * (raw deflate, {@code Inflater(true)}). A range must inflate to exactly its announced length and
 * its deflate stream must end exactly at the range's end; anything else, corrupt data included,
 * is refused as {@code plan}. Two 64 KB buffers whatever the sizes.
 */
final class DeltaFriendlyOld {
  private final OldFile old;
  private final byte[] in = new byte[Records.CHUNK];
  private final byte[] out = new byte[Records.CHUNK];

  private DeltaFriendlyOld(OldFile old) {
    this.old = old;
  }

  /** Writes dfOld into {@code file} (replacing it). */
  static void build(OldFile old, FileByFilePlan plan, File file) throws IOException {
    DeltaFriendlyOld b = new DeltaFriendlyOld(old);
    try (OutputStream to = new BufferedOutputStream(new FileOutputStream(file), Records.CHUNK)) {
      long pos = 0;
      for (int i = 0; i < plan.oldOffset.length; i++) {
        b.copy(pos, plan.oldOffset[i], to);
        b.inflate(plan, i, to);
        pos = plan.oldOffset[i] + plan.oldLength[i];
      }
      b.copy(pos, old.size(), to);
    }
  }

  private void copy(long from, long to, OutputStream sink) throws IOException {
    while (from < to) {
      int r = old.read(from, in, 0, (int) Math.min(in.length, to - from));
      if (r <= 0) throw new IOException("the installed APK ended at " + from + " bytes");
      sink.write(in, 0, r);
      from += r;
    }
  }

  private void inflate(FileByFilePlan plan, int i, OutputStream sink) throws IOException {
    long pos = plan.oldOffset[i];
    long end = pos + plan.oldLength[i];
    long want = plan.oldInflated[i];
    long made = 0;
    Inflater inflater = new Inflater(true);
    try {
      while (!inflater.finished()) {
        if (inflater.needsInput()) {
          if (pos == end) throw FileByFilePlan.plan("old range " + i + " ends inside its deflate stream");
          int r = old.read(pos, in, 0, (int) Math.min(in.length, end - pos));
          if (r <= 0) throw new IOException("the installed APK ended at " + pos + " bytes");
          inflater.setInput(in, 0, r);
          pos += r;
        }
        int n = inflater.inflate(out);
        if (n == 0 && inflater.needsDictionary()) throw FileByFilePlan.plan("old range " + i + " needs a dictionary");
        if (n > want - made) throw FileByFilePlan.plan("old range " + i + " inflates to more than " + want + " bytes");
        sink.write(out, 0, n);
        made += n;
      }
      if (inflater.getRemaining() > 0 || pos != end) {
        throw FileByFilePlan.plan("old range " + i + "'s deflate stream ends before the range does");
      }
      if (made != want) throw FileByFilePlan.plan("old range " + i + " inflates to " + made + " bytes, not " + want);
    } catch (DataFormatException corrupt) {
      throw FileByFilePlan.plan("old range " + i + " is not valid deflate data: " + corrupt.getMessage());
    } finally {
      inflater.end();
    }
  }
}
