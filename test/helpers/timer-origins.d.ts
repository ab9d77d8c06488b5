/** Types of timer-origins.js (a plain script: the test environment requires it untranspiled). */
export function recordTimerOrigins(global: object, testPath: string): void;
/** The origins (test file, stack) of the ref'd timers still pending in this process. */
export function pendingTimerOrigins(): string[];
