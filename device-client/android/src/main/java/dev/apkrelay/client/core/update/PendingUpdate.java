package dev.apkrelay.client.core.update;

import dev.apkrelay.client.core.delta.DeltaFetch;
import dev.apkrelay.client.core.download.DownloadResult;
import dev.apkrelay.client.core.json.Json;
import dev.apkrelay.client.core.ports.Clock;
import dev.apkrelay.client.core.ports.Logger;
import dev.apkrelay.client.core.ports.Logger.Level;
import dev.apkrelay.client.core.ports.Storage;
import dev.apkrelay.client.core.protocol.GiveupEvent;
import dev.apkrelay.client.core.protocol.VersionEvent;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The pending update of spec section 3, as device-client/core/pending-update.ts decides it, without
 * its timers and UI: each method changes the persisted state and answers what the caller (the
 * update driver in the glue) must do next. States: none → downloading → downloaded, not applied →
 * installing; a verified give-up of the pending APK goes back to none. Thread-safe.
 */
public final class PendingUpdate {
  public enum State { NONE, DOWNLOADING, DOWNLOADED, INSTALLING }

  /** What the caller does next. */
  public enum Action {
    /** Nothing to do (already installed, already downloading, nothing pending). */
    NOTHING,
    /** Start (or resume) downloading {@link #fileName()}; an older pending file was deleted. */
    DOWNLOAD,
    /** Download again after the backoff. */
    RETRY,
    /** Downloaded and verified: present it per strategy (if idle is true). */
    PRESENT,
    /** Refused downloads in a row reached the cap: the update waits for a new event. */
    ABANDONED,
    /** Idle is false: nothing is shown, broadcast or installed. */
    IDLE_FALSE,
    /** Hash the file again, then hand it to the installer. */
    INSTALL
  }

  static final String PENDING_KEY = "pending-update";
  static final String GAVE_UP_KEY = "gave-up";
  /** The last installation's outcome, kept for the heartbeat (see {@link #installOutcome()}). */
  static final String OUTCOME_KEY = "install-outcome";
  static final int GAVE_UP_KEPT = 50;

  private final Storage storage;
  private final Logger logger;
  private final String installedMd5;
  private final int maxTamperedDownloads;
  private final Clock clock;
  private VersionEvent event;
  private State state = State.NONE;
  private long remindAt;
  private int tampered;
  private final List<String> gaveUp = new ArrayList<>();

  /** @param installedMd5 the running APK's MD5; null when unknown */
  public PendingUpdate(Storage storage, Logger logger, String installedMd5, int maxTamperedDownloads) {
    this(storage, logger, installedMd5, maxTamperedDownloads, Clock.SYSTEM);
  }

  /** @param clock when an installation outcome was seen (its {@code at}) */
  public PendingUpdate(Storage storage, Logger logger, String installedMd5, int maxTamperedDownloads,
      Clock clock) {
    this.storage = storage;
    this.logger = logger;
    this.installedMd5 = installedMd5;
    this.maxTamperedDownloads = maxTamperedDownloads;
    this.clock = clock;
  }

  /** Restores the last run's state: an installed update is cleared, an unfinished install is downloaded. */
  @SuppressWarnings("unchecked")
  public synchronized Action load() throws IOException {
    String g = storage.read(GAVE_UP_KEY);
    if (g != null && !g.isEmpty()) {
      for (Object o : (List<Object>) Json.parse(g)) gaveUp.add((String) o);
    }
    String raw = storage.read(PENDING_KEY);
    if (raw == null || raw.isEmpty()) return Action.NOTHING;
    Map<String, Object> saved = Json.parseObject(raw);
    VersionEvent e = VersionEvent.fromJson((Map<String, Object>) saved.get("event"));
    if (e == null) return Action.NOTHING;
    if (e.md5.equals(installedMd5)) {
      logger.log(Level.INFO, "update " + e.md5 + " is installed");
      // The OS's own success, when it was heard before the process was replaced, stays as it was.
      if (!isOutcome(e.md5, "success")) recordOutcome(e, true, 0, "installed");
      storage.removeFile(fileName(e));
      save(null, State.NONE);
      return Action.NOTHING;
    }
    State s = State.valueOf((String) saved.get("state"));
    Long at = Json.asLong(saved.get("remindAt"));
    remindAt = at == null ? 0 : at;
    save(e, s == State.INSTALLING ? State.DOWNLOADED : s);
    return state == State.DOWNLOADING ? Action.DOWNLOAD : Action.PRESENT;
  }

  public synchronized State state() {
    return state;
  }

  /** Nullable. */
  public synchronized VersionEvent event() {
    return event;
  }

  /** The file of the pending update; null when none. */
  public synchronized String fileName() {
    return event == null ? null : fileName(event);
  }

  static String fileName(VersionEvent e) {
    return "update-" + e.md5 + ".apk";
  }

  /** A verified version event addressed to this installation. */
  public synchronized Action onVersion(VersionEvent e) throws IOException {
    if (e.md5.equals(installedMd5)) return Action.NOTHING;
    if (event != null && event.md5.equals(e.md5)) {
      return state == State.DOWNLOADED ? Action.PRESENT : Action.NOTHING;
    }
    discard();
    tampered = 0;
    remindAt = 0;
    save(e, State.DOWNLOADING);
    return Action.DOWNLOAD;
  }

  /** The outcome of one download attempt of the pending event. */
  public synchronized Action onDownloaded(VersionEvent e, DownloadResult result) throws IOException {
    if (event == null || !event.md5.equals(e.md5) || state != State.DOWNLOADING) return Action.NOTHING;
    switch (result.kind) {
      case VERIFIED:
        logger.log(Level.INFO, "update " + e.md5 + " (versionCode " + e.versionCode + ") downloaded and verified");
        save(e, State.DOWNLOADED);
        return Action.PRESENT;
      case TAMPERED:
        logger.log(Level.ERROR, "update " + e.md5 + " refused: " + result.reason + "; the file was deleted");
        if (++tampered >= maxTamperedDownloads) {
          logger.log(Level.ERROR, "update " + e.md5 + " abandoned: " + result.reason);
          save(null, State.NONE);
          return Action.ABANDONED;
        }
        return Action.RETRY;
      default:
        logger.log(Level.WARN, "download of " + e.md5 + " interrupted (" + result.reason + "); will resume");
        return Action.RETRY;
    }
  }

  /**
   * A verified give-up: true when it withdrew the pending update (file deleted; the caller clears
   * the notification and popups and, with CUSTOM, sends GIVEUP). Each apkId is given up once.
   */
  public synchronized boolean onGiveup(GiveupEvent g) throws IOException {
    if (gaveUp.contains(g.apkId)) return false;
    if (event == null || !event.apkId.equals(g.apkId) || state == State.INSTALLING) {
      logger.log(Level.INFO, "give-up of " + g.apkId + ": no such pending update");
      return false;
    }
    gaveUp.add(g.apkId);
    while (gaveUp.size() > GAVE_UP_KEPT) gaveUp.remove(0);
    storage.write(GAVE_UP_KEY, Json.stringify(gaveUp));
    logger.log(Level.INFO, "update " + event.md5 + " given up by the administrator");
    discard();
    return true;
  }

  /** Spec: an update is downloaded but not applied. */
  public synchronized boolean hasPendingUpdate() {
    return state == State.DOWNLOADED;
  }

  /** The user accepted or custom code applies: INSTALL only when downloaded and idle is true. */
  public synchronized Action apply(boolean idle) {
    if (state != State.DOWNLOADED) return Action.NOTHING;
    if (!idle) {
      logger.log(Level.WARN, "update not applied: idle is false");
      return Action.IDLE_FALSE;
    }
    return Action.INSTALL;
  }

  /** The file was hashed again and matched: it goes to the installer now. */
  public synchronized void installing() throws IOException {
    if (state == State.DOWNLOADED) save(event, State.INSTALLING);
  }

  /** The OS refused or the session failed: the update is downloaded, not applied, again. */
  public synchronized void installFailed(String why) throws IOException {
    installFailed(-1, why);
  }

  /**
   * The OS refused or the session failed, with the OS's status (PackageInstaller.STATUS_*, -1 when
   * the library failed before the OS answered) and message: downloaded, not applied, again.
   */
  public synchronized void installFailed(int status, String why) throws IOException {
    if (state != State.INSTALLING) return;
    logger.log(Level.ERROR, "installation of " + event.md5 + " failed: status " + status + ": " + why);
    recordOutcome(event, false, status, why);
    save(event, State.DOWNLOADED);
  }

  /**
   * The OS installed the update and its answer was heard (a self-update is normally replaced
   * before that: {@link #load()} records the success at the next start instead).
   */
  public synchronized void installSucceeded(int status, String message) throws IOException {
    if (state != State.INSTALLING) return;
    recordOutcome(event, true, status, message);
  }

  /**
   * The last installation's outcome as JSON, in the heartbeat's {@code lastInstall} form ({@code
   * md5, versionCode, status: success|failure, osStatus, message, at}) plus {@code reported}, or
   * null. Kept until the next outcome replaces it.
   */
  public String installOutcome() throws IOException {
    String raw = storage.read(OUTCOME_KEY);
    return raw == null || raw.isEmpty() ? null : raw;
  }

  /** The outcome the server has not acknowledged yet, as the heartbeat's {@code lastInstall}; or null. */
  public synchronized Map<String, Object> unreportedOutcome() throws IOException {
    Map<String, Object> o = outcome();
    if (o == null || Boolean.TRUE.equals(o.remove("reported"))) return null;
    return o;
  }

  /** A heartbeat carrying {@code sent} was accepted: it is not sent again (a newer one still is). */
  public synchronized void outcomeReported(Map<String, Object> sent) throws IOException {
    Map<String, Object> o = outcome();
    if (o == null) return;
    o.remove("reported");
    if (!Json.stringify(o).equals(Json.stringify(sent))) return;
    o.put("reported", true);
    storage.write(OUTCOME_KEY, Json.stringify(o));
  }

  private Map<String, Object> outcome() throws IOException {
    String raw = installOutcome();
    try {
      return raw == null ? null : Json.parseObject(raw);
    } catch (RuntimeException unreadable) {
      return null;
    }
  }

  private boolean isOutcome(String md5, String status) throws IOException {
    Map<String, Object> o = outcome();
    return o != null && md5.equals(o.get("md5")) && status.equals(o.get("status"));
  }

  private void recordOutcome(VersionEvent e, boolean success, int status, String message) throws IOException {
    Map<String, Object> o = Json.object("md5", e.md5, "versionCode", e.versionCode,
        "status", success ? "success" : "failure", "osStatus", status, "message", message,
        "at", Instant.ofEpochMilli(clock.now()).toString());
    // How the update came (issue 37), when the library downloaded it: delta or full, bytes, fallback.
    Map<String, Object> download = DownloadRecord.report(storage, e.md5);
    if (download != null) o.put("download", download);
    o.put("reported", false);
    storage.write(OUTCOME_KEY, Json.stringify(o));
  }

  /** The file failed its check right before the install: deleted, back to none. */
  public synchronized void refusedBeforeInstall(String reason) throws IOException {
    if (event == null) return;
    logger.log(Level.ERROR, "update " + event.md5 + " refused before install: " + reason);
    discard();
  }

  /** FRIENDLY_POPUP's Not Now: ask again after the reminder time. */
  public synchronized void notNow(long nowMs, int reminderSeconds) throws IOException {
    remindAt = nowMs + reminderSeconds * 1000L;
    save(event, state);
  }

  /** Milliseconds until the friendly popup may show again (0 or less: now). */
  public synchronized long msUntilPopupDue(long nowMs) {
    return remindAt - nowMs;
  }

  /** Whether the friendly popup may show now (not within a Not Now's reminder time). */
  public synchronized boolean popupDue(long nowMs) {
    return state == State.DOWNLOADED && nowMs >= remindAt;
  }

  private void discard() throws IOException {
    VersionEvent old = event;
    save(null, State.NONE);
    if (old != null) {
      storage.removeFile(fileName(old));
      storage.removeFile(DeltaFetch.patchName(old));
      storage.removeFile(DeltaFetch.dfOldName(old));
    }
  }

  private void save(VersionEvent e, State s) throws IOException {
    event = e;
    state = e == null ? State.NONE : s;
    storage.write(PENDING_KEY, e == null ? ""
        : Json.stringify(Json.object("event", e.toJson(), "state", state.name(), "remindAt", remindAt)));
  }
}
