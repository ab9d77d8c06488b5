package dev.apkrelay.client.core.update;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.apkrelay.client.core.download.DownloadResultFactory;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.FileStorage;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.protocol.GiveupEvent;
import dev.apkrelay.client.core.protocol.VersionEvent;
import dev.apkrelay.client.core.update.PendingUpdate.Action;
import dev.apkrelay.client.core.update.PendingUpdate.State;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spec section 3, "Pending update (client side)" and "Idle flag", step by step. */
class PendingUpdateTest {
  static final String INSTALLED = "11111111111111111111111111111111";
  static final VersionEvent V2 = new VersionEvent("dev.apkrelay.demo", "apk-2", "22222222222222222222222222222222",
      "2222222222222222222222222222222222222222222222222222222222222222", 2, "2.0", 3, "https://h/download", null);
  static final VersionEvent V3 = new VersionEvent("dev.apkrelay.demo", "apk-3", "33333333333333333333333333333333",
      "3333333333333333333333333333333333333333333333333333333333333333", 3, "3.0", 3, "https://h/download", null);

  /** Outcomes are stamped with this clock's time: 1.5 s after the epoch. */
  static final Clock CLOCK = new Clock() {
    @Override
    public long now() {
      return 1_500;
    }

    @Override
    public double random() {
      return 0;
    }
  };

  @TempDir Path dir;
  final List<String> log = new ArrayList<>();
  final Logger logger = (level, message) -> log.add(level + " " + message);

  PendingUpdate update(String installed) throws IOException {
    PendingUpdate u = new PendingUpdate(new FileStorage(dir.toFile()), logger, installed, 3, CLOCK);
    u.load();
    return u;
  }

  /** V2 downloaded, verified and handed to the installer. */
  PendingUpdate installingV2() throws IOException {
    PendingUpdate u = update(INSTALLED);
    u.onVersion(V2);
    u.onDownloaded(V2, DownloadResultFactory.verified());
    u.installing();
    return u;
  }

  void file(String name) throws IOException {
    Files.write(dir.resolve(name), new byte[] {1, 2, 3});
  }

  @Test
  void aNewVersionIsDownloadedThenPendingUntilAccepted() throws IOException {
    PendingUpdate u = update(INSTALLED);
    assertEquals(Action.DOWNLOAD, u.onVersion(V2));
    assertEquals("update-22222222222222222222222222222222.apk", u.fileName());
    assertFalse(u.hasPendingUpdate());
    assertEquals(Action.NOTHING, u.onVersion(V2)); // the same event again while downloading
    assertEquals(Action.RETRY, u.onDownloaded(V2, DownloadResultFactory.failed("the download ended early")));
    assertEquals(Action.PRESENT, u.onDownloaded(V2, DownloadResultFactory.verified()));
    assertTrue(u.hasPendingUpdate());
    assertEquals(Action.PRESENT, u.onVersion(V2)); // repeated notice: notify again
    assertEquals(Action.IDLE_FALSE, u.apply(false));
    assertEquals(Action.INSTALL, u.apply(true));
    u.installing();
    assertEquals(State.INSTALLING, u.state());
    u.installFailed("INSTALL_FAILED_VERSION_DOWNGRADE");
    assertEquals(State.DOWNLOADED, u.state());
  }

  @Test
  void theStateSurvivesARestartAndAnInstalledUpdateIsCleared() throws IOException {
    PendingUpdate u = update(INSTALLED);
    u.onVersion(V2);
    u.onDownloaded(V2, DownloadResultFactory.verified());
    u.installing();
    file(u.fileName());
    assertEquals(State.DOWNLOADED, update(INSTALLED).state()); // install not completed: pending again
    PendingUpdate after = update(V2.md5); // the process now runs V2
    assertEquals(State.NONE, after.state());
    assertFalse(new File(dir.toFile(), "update-" + V2.md5 + ".apk").exists());
  }

  @Test
  void theInstallOutcomeIsKeptForTheNextHeartbeat() throws IOException {
    PendingUpdate u = installingV2();
    u.installFailed(4, "INSTALL_FAILED_UPDATE_INCOMPATIBLE: signatures do not match");
    String failure = "{\"md5\":\"" + V2.md5 + "\",\"versionCode\":2,\"status\":\"failure\",\"osStatus\":4,"
        + "\"message\":\"INSTALL_FAILED_UPDATE_INCOMPATIBLE: signatures do not match\","
        + "\"at\":\"1970-01-01T00:00:01.500Z\"}";
    assertEquals(failure, Json.stringify(u.unreportedOutcome()));
    u.outcomeReported(u.unreportedOutcome());
    assertNull(u.unreportedOutcome()); // sent once
    u.installing();
    PendingUpdate after = update(V2.md5); // the OS replaced the process with V2
    assertEquals("{\"md5\":\"" + V2.md5 + "\",\"versionCode\":2,\"status\":\"success\",\"osStatus\":0,"
        + "\"message\":\"installed\",\"at\":\"1970-01-01T00:00:01.500Z\"}", Json.stringify(after.unreportedOutcome()));
  }

  @Test
  void anOutcomeAcknowledgedAfterANewerOneWasRecordedLeavesTheNewerUnreported() throws IOException {
    PendingUpdate u = installingV2();
    u.installFailed(-1, "first");
    java.util.Map<String, Object> sent = u.unreportedOutcome();
    u.installing();
    u.installFailed(-1, "second"); // recorded while the heartbeat with "first" was on its way
    u.outcomeReported(sent);
    assertEquals("second", u.unreportedOutcome().get("message"));
  }

  @Test
  void aSuccessHeardFromTheOsIsNotRecordedAgainAtTheNextStart() throws IOException {
    PendingUpdate u = installingV2();
    u.installSucceeded(0, "INSTALL_SUCCEEDED");
    u.outcomeReported(u.unreportedOutcome());
    assertNull(update(V2.md5).unreportedOutcome()); // reported before the process was replaced
  }

  @Test
  void notNowIsKeptAcrossARestart() throws IOException {
    PendingUpdate u = update(INSTALLED);
    u.onVersion(V2);
    u.onDownloaded(V2, DownloadResultFactory.verified());
    u.notNow(1_000, 10_800);
    assertEquals(10_801_000 - 2_000, update(INSTALLED).msUntilPopupDue(2_000));
  }

  @Test
  void aNewerVersionReplacesThePendingOneAndItsFile() throws IOException {
    PendingUpdate u = update(INSTALLED);
    u.onVersion(V2);
    file(u.fileName());
    assertEquals(Action.DOWNLOAD, u.onVersion(V3));
    assertFalse(new File(dir.toFile(), "update-" + V2.md5 + ".apk").exists());
    assertEquals(Action.NOTHING, update(V3.md5).onVersion(V3)); // already running it
  }

  @Test
  void aGiveUpWithdrawsOncePersistently() throws IOException {
    PendingUpdate u = update(INSTALLED);
    u.onVersion(V2);
    u.onDownloaded(V2, DownloadResultFactory.verified());
    file(u.fileName());
    GiveupEvent g = new GiveupEvent("dev.apkrelay.demo", "apk-2", V2.md5);
    assertFalse(u.onGiveup(new GiveupEvent("dev.apkrelay.demo", "apk-9", null)));
    assertTrue(u.onGiveup(g));
    assertEquals(State.NONE, u.state());
    assertFalse(new File(dir.toFile(), "update-" + V2.md5 + ".apk").exists());
    assertFalse(u.onGiveup(g));
    PendingUpdate after = update(INSTALLED);
    after.onVersion(V2);
    assertFalse(after.onGiveup(g)); // once, across restarts
  }

  @Test
  void tamperedDownloadsAreAbandonedAfterTheCap() throws IOException {
    PendingUpdate u = update(INSTALLED);
    u.onVersion(V2);
    assertEquals(Action.RETRY, u.onDownloaded(V2, DownloadResultFactory.tampered("MD5 mismatch")));
    assertEquals(Action.RETRY, u.onDownloaded(V2, DownloadResultFactory.tampered("MD5 mismatch")));
    assertEquals(Action.ABANDONED, u.onDownloaded(V2, DownloadResultFactory.tampered("MD5 mismatch")));
    assertEquals(State.NONE, u.state());
  }

  @Test
  void notNowWaitsTheReminderTime() throws IOException {
    PendingUpdate u = update(INSTALLED);
    u.onVersion(V2);
    u.onDownloaded(V2, DownloadResultFactory.verified());
    long t = 1_764_000_000_000L;
    assertTrue(u.popupDue(t));
    u.notNow(t, 10_800);
    assertFalse(u.popupDue(t + 10_799_999));
    assertTrue(u.popupDue(t + 10_800_000));
    assertFalse(update(INSTALLED).popupDue(t + 1)); // remembered across restarts
  }
}
