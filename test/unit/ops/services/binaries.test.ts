import { ferretBuildLabel } from '../../../../ops/services/binaries';

test("the FerretDB build step says how long it takes on this machine's cores", () => {
  expect(ferretBuildLabel(2)).toBe('building FerretDB 1.24.2 with Go, about 2 minutes on 2 cores');
  expect(ferretBuildLabel(1)).toBe('building FerretDB 1.24.2 with Go, about 4 minutes on 1 core');
  expect(ferretBuildLabel(8)).toBe('building FerretDB 1.24.2 with Go, about 1 minute on 8 cores');
});
