import { orderFleet, type FleetRow } from '../../../../shared/devices/fleet';

const row = (deviceId: string, installedMd5: string | null, seen: string): FleetRow => ({
  id: deviceId,
  deviceId,
  status: 'enabled',
  installedMd5,
  metadata: [],
  registeredAt: new Date(0),
  lastSeenAt: new Date(`2026-11-29T${seen}:00.000Z`),
});
const rows = [
  row('b', 'm1', '10:00'),
  row('a', 'm2', '09:00'),
  row('d', null, '11:00'),
  row('c', 'm1', '11:00'),
  row('e', 'm9', '08:00'),
];
const codes = new Map([
  ['m1', 1],
  ['m2', 2],
]);
const ids = (sort: Parameters<typeof orderFleet>[1]) =>
  orderFleet(rows, sort, codes).map((r) => r.deviceId);

test('last seen: newest first, ties by device id', () => {
  expect(ids('lastSeen')).toEqual(['c', 'd', 'b', 'a', 'e']);
});

test('version: highest versionCode first, unknown versions last, ties by device id', () => {
  expect(ids('version')).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('device id: A to Z', () => {
  expect(ids('deviceId')).toEqual(['a', 'b', 'c', 'd', 'e']);
});
