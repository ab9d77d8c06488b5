// Test environment that fails a test file which leaves a tracked resource open (a Worker, a
// Redis or Mongo client, a server). It checks after every afterAll hook of the file has run,
// which a setupFilesAfterEnv hook cannot do (those run first).
// It also records where each timer was made (timer-origins.js), for the exit watchdog and the
// report of a jest worker that does not exit (worker-exit-report.js).
const { TestEnvironment } = require('jest-environment-node');
const { recordTimerOrigins } = require('./timer-origins');
const { armWorkerExitReport } = require('./worker-exit-report');

class LeakGuardEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    recordTimerOrigins(this.global, context.testPath);
    armWorkerExitReport(config.projectConfig.rootDir, context.testPath);
  }

  async teardown() {
    const open = this.global.__apkrelayOpenResources;
    const left = open ? [...open.values()] : [];
    await super.teardown();
    if (left.length > 0) {
      throw new Error(`test file left resources open: ${left.join(', ')}`);
    }
  }
}

module.exports = LeakGuardEnvironment;
