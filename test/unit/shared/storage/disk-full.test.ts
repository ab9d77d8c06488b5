import { AppError } from '../../../../shared/errors';
import { diskFullAsOutage, isDiskFull } from '../../../../shared/storage/disk-full';

test('a full disk is recognised from the filesystem, MongoDB and FerretDB', () => {
  const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
  });
  const mongod = Object.assign(new Error('Insufficient disk space'), {
    code: 14031,
    codeName: 'OutOfDiskSpace',
  });
  const ferretdb = new Error(
    '[msg_insert.go:168 handler.(*Handler).MsgInsert] [db.go:167 fsql.(*DB).InTransaction] database or disk is full (13)',
  );
  const wrapped = new Error('write failed', { cause: enospc });
  for (const err of [enospc, mongod, ferretdb, wrapped]) expect(isDiskFull(err)).toBe(true);
  for (const err of [new Error('E11000 duplicate key'), null, 'ENOSPC', { code: 'EACCES' }]) {
    expect(isDiskFull(err)).toBe(false);
  }
});

test('diskFullAsOutage turns a full disk into a retryable 503 and leaves other errors alone', () => {
  const full = diskFullAsOutage(new Error('database or disk is full (13)'));
  expect(full).toBeInstanceOf(AppError);
  expect(full).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', status: 503 });
  const other = new Error('E11000 duplicate key');
  expect(diskFullAsOutage(other)).toBe(other);
});
