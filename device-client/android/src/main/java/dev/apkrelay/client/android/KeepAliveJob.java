package dev.apkrelay.client.android;

import android.app.job.JobInfo;
import android.app.job.JobParameters;
import android.app.job.JobScheduler;
import android.app.job.JobService;
import android.content.ComponentName;
import android.content.Context;
import android.util.Log;
import dev.apkrelay.client.core.Engine;

/**
 * The periodic check that keeps a device that nobody opens in touch: every 15 minutes (the
 * JobScheduler minimum), with any network, kept across reboots ({@code setPersisted}, which needs
 * RECEIVE_BOOT_COMPLETED). Starting the job starts the process, so {@code Client.start} runs in
 * {@code Application.onCreate}; the job then wakes the engine: the push stream reconnects at once
 * (its first events carry the current version, signed) and a registered installation beats
 * (carrying the last install's outcome). The job ends at once; the engine works on its own threads.
 * Doze defers it to maintenance windows; a device owner may exempt the app (docs/android-kiosk.md).
 */
public final class KeepAliveJob extends JobService {
  /** The job's id in the host app's JobScheduler namespace ("apkr"). */
  public static final int JOB_ID = 0x61706b72;
  public static final long PERIOD_MS = 15 * 60_000L;

  /** Schedules the job unless it is already scheduled (idempotent; any thread). */
  public static void schedule(Context context) {
    JobScheduler js = (JobScheduler) context.getSystemService(Context.JOB_SCHEDULER_SERVICE);
    if (js == null) return;
    for (JobInfo j : js.getAllPendingJobs()) if (j.getId() == JOB_ID) return;
    JobInfo job = new JobInfo.Builder(JOB_ID, new ComponentName(context, KeepAliveJob.class))
        .setPeriodic(PERIOD_MS)
        .setPersisted(true)
        .setRequiredNetworkType(JobInfo.NETWORK_TYPE_ANY)
        .build();
    if (js.schedule(job) != JobScheduler.RESULT_SUCCESS) Log.w(AndroidLogger.TAG, "the periodic check was not scheduled");
  }

  @Override
  public boolean onStartJob(JobParameters params) {
    Engine engine = Running.engine();
    if (engine == null) {
      Log.w(AndroidLogger.TAG, "periodic check: Client.start has not run in this process");
    } else {
      engine.wake();
    }
    return false;
  }

  @Override
  public boolean onStopJob(JobParameters params) {
    return false;
  }
}
