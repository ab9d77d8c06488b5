import { frameKind, frameRuns } from '../../../../shared/exceptions/frames';

const PKG = 'dev.apkrelay.sample';

test.each([
  ['\tat dev.apkrelay.sample.MainActivity.onClick(MainActivity.java:42)', 'app'],
  ['    at dev.apkrelay.sample.ui.Checkout$1.run(Unknown Source)', 'app'],
  ['\tat dev.apkrelay.samples.Other.run(Other.java:1)', 'library'],
  ['\tat android.view.View.performClick(View.java:7448)', 'framework'],
  ['\tat androidx.fragment.app.Fragment.onResume(Fragment.java:3)', 'framework'],
  ['\tat java.lang.reflect.Method.invoke(Native Method)', 'framework'],
  ['\tat kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(x.kt:9)', 'framework'],
  ['\tat com.android.internal.os.ZygoteInit.main(ZygoteInit.java:947)', 'framework'],
  ['\tat dalvik.system.NativeStart.main(Native Method)', 'framework'],
  ['\tat okhttp3.RealCall.execute(RealCall.kt:154)', 'library'],
  ['java.lang.IllegalStateException: at checkout', 'text'],
  ['Caused by: java.lang.NullPointerException: boom', 'text'],
  ['\t... 12 more', 'text'],
])('%s is a %s line', (line, kind) => expect(frameKind(line, PKG)).toBe(kind));

test('consecutive lines of a kind form one run', () => {
  const lines = [
    'java.lang.IllegalStateException: x',
    '\tat dev.apkrelay.sample.A.a(A.java:1)',
    '\tat android.view.View.performClick(View.java:2)',
    '\tat android.os.Handler.dispatchMessage(Handler.java:3)',
    '\tat java.lang.Thread.run(Thread.java:4)',
    '\tat okhttp3.RealCall.execute(RealCall.kt:5)',
    'Caused by: java.lang.NullPointerException: boom',
    '\tat dev.apkrelay.sample.Repo.load(Repo.java:6)',
    '\t... 12 more',
  ];
  expect(frameRuns(lines, PKG)).toEqual([
    { kind: 'text', lines: [lines[0]] },
    { kind: 'app', lines: [lines[1]] },
    { kind: 'framework', lines: [lines[2], lines[3], lines[4]] },
    { kind: 'library', lines: [lines[5]] },
    { kind: 'text', lines: [lines[6]] },
    { kind: 'app', lines: [lines[7]] },
    { kind: 'text', lines: [lines[8]] },
  ]);
});
