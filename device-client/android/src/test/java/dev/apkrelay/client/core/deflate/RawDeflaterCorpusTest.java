package dev.apkrelay.client.core.deflate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * RawDeflaterStream against the JDK's zlib 1.2.13 over every deflated entry of real APKs
 * ({@link DeflateIdentity}): the directory named by the system property apkrelay.deflateCorpus
 * when set, else the repository's APK fixtures (test/fixtures/apks, built by aapt) and the demo
 * app's APKs when an earlier build left them (target/demo). Skipped, saying so, when none exist.
 */
class RawDeflaterCorpusTest {
  @Test
  void everyDeflatedEntryOfTheCorpusIsByteIdenticalToTheJdk() throws Exception {
    List<File> apks = new ArrayList<>();
    String corpus = System.getProperty("apkrelay.deflateCorpus");
    if (corpus != null) {
      DeflateIdentity.collect(new File(corpus), apks);
    } else {
      DeflateIdentity.collect(new File("../../test/fixtures/apks"), apks);
      DeflateIdentity.collect(new File("target/demo"), apks);
    }
    Assumptions.assumeFalse(
        apks.isEmpty(),
        "no APKs in " + (corpus != null ? corpus : "../../test/fixtures/apks or target/demo"));
    DeflateIdentity.Result r = DeflateIdentity.check(apks);
    System.out.println("deflate corpus: " + r.summary());
    assertEquals(List.of(), r.differences);
    assertTrue(r.entries > 0, "the corpus has deflated entries");
    assertEquals(r.entries * 30, r.pairs);
  }
}
