import { crashRates } from '../../../../shared/exceptions/crash-rates';

const at = (iso: string) => new Date(`2026-11-${iso}:00.000Z`);
const window = { from: at('28T12:00'), to: at('29T12:00') };
const apks = [
  { id: 'a1', md5: 'm1', versionCode: 1, versionName: '1.0' },
  { id: 'a2', md5: 'm2', versionCode: 2, versionName: '1.1' },
  { id: 'a3', md5: 'm3', versionCode: 3, versionName: '1.2' },
];
const installed = (deviceId: string, md5: string | null, registered: string, seen: string) => ({
  deviceId,
  installedMd5: md5,
  registeredAt: at(registered),
  lastSeenAt: at(seen),
});
const installations = [
  installed('d1', 'm1', '20T00:00', '29T12:00'), // 24 h
  installed('d2', 'm1', '29T06:00', '29T09:00'), // 3 h
  installed('d3', 'm1', '20T00:00', '28T11:00'), // not seen in the window
  installed('d4', 'm2', '29T00:00', '29T12:00'), // 12 h
  installed('d5', 'm2', '28T00:00', '29T11:30'), // 23.5 h
  installed('d6', null, '28T00:00', '29T11:30'), // runs nothing known
  installed('d7', 'mx', '28T00:00', '29T11:30'),
];
const crash = (deviceId: string, apkId: string, when: string) => ({
  deviceId,
  apkId,
  receivedAt: at(when),
});
const reports = [
  crash('d1', 'a1', '29T01:00'),
  crash('d1', 'a1', '29T02:00'),
  crash('d4', 'a2', '29T05:00'),
  crash('d4', 'a2', '29T06:00'),
  crash('d5', 'a2', '29T07:00'),
  crash('d2', 'a2', '29T08:00'), // d2 runs 1.0 now: counts for 1.1, crashes none of 1.1's devices
  crash('d1', 'a1', '28T11:59'), // before the window
  crash('d1', 'a1', '29T12:00'), // at its end: outside
  crash('d9', 'unknown', '29T03:00'),
];

test('per version: installations seen, their hours, unhandled reports, rates and crash-free share', () => {
  expect(crashRates(apks, installations, reports, window)).toEqual([
    {
      apkId: 'a2',
      versionCode: 2,
      versionName: '1.1',
      installations: 2,
      installationHours: 35.5,
      unhandled: 4,
      perInstallationHour: 4 / 35.5,
      perInstallation: 2,
      crashFreeInstallations: 0,
      crashFreePercent: 0,
    },
    {
      apkId: 'a1',
      versionCode: 1,
      versionName: '1.0',
      installations: 2,
      installationHours: 27,
      unhandled: 2,
      perInstallationHour: 2 / 27,
      perInstallation: 1,
      crashFreeInstallations: 1,
      crashFreePercent: 50,
    },
  ]);
});

test('a version with reports and no installation seen has no rate per installation', () => {
  const rows = crashRates(apks, [], [crash('d1', 'a3', '29T01:00')], window);
  expect(rows).toEqual([
    {
      apkId: 'a3',
      versionCode: 3,
      versionName: '1.2',
      installations: 0,
      installationHours: 0,
      unhandled: 1,
      perInstallationHour: null,
      perInstallation: null,
      crashFreeInstallations: 0,
      crashFreePercent: null,
    },
  ]);
});
