/** The PushLink listener's admission bookkeeping (docs/pushlink-sdk.md#bounds), literal inputs. */
import { ConnectionGate, type Admitted } from '../../../../../api/push/legacy/connection-gate';

const admitted = (v: Admitted | string): Admitted => {
  if (typeof v === 'string') throw new Error(`refused: ${v}`);
  return v;
};

test('pending connections are bounded per address, IPv6 by /64 and mapped IPv4 as IPv4', () => {
  const gate = new ConnectionGate({ maxConnections: 100, maxPendingPerAddress: 2 });
  admitted(gate.admit('2001:db8:1:2::a'));
  admitted(gate.admit('2001:db8:1:2:ffff::b'));
  expect(gate.admit('2001:db8:1:2::c')).toBe('address');
  admitted(gate.admit('2001:db8:1:3::a'));
  admitted(gate.admit('::ffff:192.0.2.1'));
  admitted(gate.admit('192.0.2.1'));
  expect(gate.admit('192.0.2.1')).toBe('address');
});

test('a subscribed connection frees its address, not the total; a close frees both once', () => {
  const gate = new ConnectionGate({ maxConnections: 3, maxPendingPerAddress: 1 });
  const a = admitted(gate.admit('198.51.100.7'));
  expect(gate.admit('198.51.100.7')).toBe('address');
  a.subscribed();
  const b = admitted(gate.admit('198.51.100.7'));
  admitted(gate.admit('203.0.113.9'));
  expect(gate.admit('203.0.113.10')).toBe('total');
  a.closed();
  a.closed();
  b.closed();
  admitted(gate.admit('203.0.113.10'));
  admitted(gate.admit('198.51.100.7'));
  expect(gate.admit('203.0.113.11')).toBe('total');
});

test('0 pending per address: not limited', () => {
  const gate = new ConnectionGate({ maxConnections: 10, maxPendingPerAddress: 0 });
  for (let i = 0; i < 10; i++) admitted(gate.admit('10.0.0.1'));
  expect(gate.admit('10.0.0.1')).toBe('total');
});
