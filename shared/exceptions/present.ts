/** Public JSON shapes of exception groups and reports (no internal fields). */
import type { ExceptionDoc, ExceptionGroupDoc } from './collections';
import type { ReportLine } from './owner-queries';

export function presentGroup(group: ExceptionGroupDoc) {
  return {
    id: group._id,
    fingerprint: group.fingerprint,
    exceptionClass: group.exceptionClass,
    title: group.title,
    count: group.count,
    handled: group.handledCount,
    unhandled: group.unhandledCount,
    firstSeen: group.firstSeen.toISOString(),
    lastSeen: group.lastSeen.toISOString(),
    versions: group.versions,
    devicesAffected: group.devices.length,
    devices: group.devices.slice(0, 100),
    latestReportId: group.lastReportId,
  };
}

export function presentReport(doc: ExceptionDoc, screenshotUrl: string | null) {
  return {
    id: doc._id,
    package: doc.package,
    version: doc.version,
    apkHash: doc.apkHash,
    deviceId: doc.deviceId,
    handled: doc.handled,
    label: doc.handled ? 'handled' : 'unhandled',
    stack: doc.stack,
    log: doc.log,
    metadata: doc.metadata,
    extra: doc.extra,
    fingerprint: doc.fingerprint,
    groupId: doc.groupId,
    receivedAt: doc.receivedAt.toISOString(),
    screenshot: screenshotUrl,
  };
}

/** A report in a list (a group's occurrences, a device's reports). */
export function presentReportLine(r: ReportLine) {
  return {
    id: r._id,
    fingerprint: r.fingerprint,
    title: r.title,
    version: r.version,
    deviceId: r.deviceId,
    handled: r.handled,
    receivedAt: r.receivedAt.toISOString(),
  };
}
