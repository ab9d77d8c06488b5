/** The Exceptions tab's pieces on literal inputs: the hourly chart and the crash-rate table. */
import {
  agoBars,
  hourlyChart,
  hourlySummary,
  ratesTable,
} from '../../../../api/exceptions/web-views';

test('bars are labelled by how long before now each starts', () => {
  expect(agoBars([4, 0, 7], 'h')).toEqual([
    { label: '-3 h', value: 4 },
    { label: '-2 h', value: 0 },
    { label: '-1 h', value: 7 },
  ]);
  expect(agoBars([1], 'd')).toEqual([{ label: '-1 d', value: 1 }]);
});

test('the hourly summary states the total, the limit, the share used and the busiest hour', () => {
  const hours = [...new Array<number>(21).fill(0), 2, 9, 1];
  expect(hourlySummary(hours, 40)).toBe(
    '12 reports in the last 24 h; limit 40 (30 % used); most in one hour: 9.',
  );
  expect(hourlySummary(new Array<number>(24).fill(0), 10)).toBe(
    '0 reports in the last 24 h; limit 10 (0 % used); most in one hour: 0.',
  );
  const chart = hourlyChart(hours, 40).text.replace(/\s+/g, ' ');
  expect(chart).toContain('aria-label="Reports per hour over the last 24 hours"');
  // 24 bars, labels under every sixth: -24 h, -18 h, -12 h, -6 h.
  expect(chart.match(/<rect /g)).toHaveLength(24);
  expect([...chart.matchAll(/text-anchor="middle" >(-\d+ h)<\/text/g)].map((m) => m[1])).toEqual([
    '-24 h',
    '-18 h',
    '-12 h',
    '-6 h',
  ]);
});

test('a crash-rate row: rates to 3 significant digits, crash-free as "n of m (p %)"', () => {
  const row = ratesTable([
    {
      apkId: 'a1',
      versionCode: 7,
      versionName: '1.7',
      installations: 3,
      installationHours: 6.5,
      unhandled: 2,
      perInstallationHour: 2 / 6.5,
      perInstallation: 2 / 3,
      crashFreeInstallations: 2,
      crashFreePercent: 200 / 3,
    },
    {
      apkId: 'a0',
      versionCode: 6,
      versionName: null,
      installations: 0,
      installationHours: 0,
      unhandled: 1,
      perInstallationHour: null,
      perInstallation: null,
      crashFreeInstallations: 0,
      crashFreePercent: null,
    },
  ]).text.replace(/\s+/g, ' ');
  expect(row).toContain(
    '<tr data-version-code="7"> <td>1.7 (7)</td> <td data-col="installations">3</td>' +
      ' <td data-col="installationHours">6.5</td> <td data-col="unhandled">2</td>' +
      ' <td data-col="perInstallationHour">0.308</td> <td data-col="perInstallation">0.667</td>' +
      ' <td data-col="crashFree"> 2 of 3 (66.7 %) </td> </tr>',
  );
  expect(row).toContain(
    '<tr data-version-code="6"> <td> (6)</td> <td data-col="installations">0</td>' +
      ' <td data-col="installationHours">0</td> <td data-col="unhandled">1</td>' +
      ' <td data-col="perInstallationHour">—</td> <td data-col="perInstallation">—</td>' +
      ' <td data-col="crashFree"> 0 of 0 </td> </tr>',
  );
  expect(ratesTable([]).text).toContain('No installations seen and no crashes in the last 24 h.');
});
