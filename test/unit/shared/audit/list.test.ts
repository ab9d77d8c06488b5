/** The audit log's query-string filter (docs/audit.md#listing). */
import { ObjectId } from 'mongodb';
import { parseAuditFilter } from '../../../../shared/audit/list';

test('no parameters: the first page of 50', () => {
  expect(parseAuditFilter({})).toEqual({ limit: 50 });
});

test('every filter is read', () => {
  const before = '65f000000000000000000001';
  expect(
    parseAuditFilter({
      action: 'rollout.halted',
      resourceKind: 'rollout',
      resourceId: 'com.example.app',
      actorKind: 'system',
      actorId: 'health-gate',
      from: '2026-11-01T00:00:00Z',
      to: '2026-11-02T00:00:00Z',
      before,
      limit: '10',
    }),
  ).toEqual({
    action: 'rollout.halted',
    resourceKind: 'rollout',
    resourceId: 'com.example.app',
    actorKind: 'system',
    actorId: 'health-gate',
    from: new Date('2026-11-01T00:00:00Z'),
    to: new Date('2026-11-02T00:00:00Z'),
    before: new ObjectId(before),
    limit: 10,
  });
});

test.each([
  [{ action: 'rollout.deleted' }, /action/],
  [{ from: 'yesterday' }, /from/],
  [{ before: 'zz' }, /before/],
  [{ limit: '0' }, /limit/],
  [{ limit: '201' }, /limit/],
  [{ actorId: ['a', 'b'] }, /actorId/],
])('%j is refused', (query, message) => {
  expect(() => parseAuditFilter(query)).toThrow(message);
});
