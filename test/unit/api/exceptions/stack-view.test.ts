import { stackTrace } from '../../../../api/exceptions/stack-view';

test('app frames are marked, framework runs are folded in <details>, other lines plain', () => {
  const out = stackTrace(
    [
      'java.lang.IllegalStateException: <boom>',
      '\tat dev.apkrelay.sample.MainActivity.onClick(MainActivity.java:42)',
      '\tat android.view.View.performClick(View.java:7448)',
      '\tat android.os.Handler.handleCallback(Handler.java:938)',
      '\tat okhttp3.RealCall.execute(RealCall.kt:154)',
      '\tat java.lang.Thread.run(Thread.java:923)',
    ],
    'dev.apkrelay.sample',
  ).text.replace(/\s+/g, ' ');
  expect(out).toBe(
    '<div class="stack-trace">' +
      '<pre class="frames"><span class="frame frame-text">java.lang.IllegalStateException: &lt;boom&gt;</span> </pre>' +
      '<pre class="frames"><span class="frame frame-app"> at dev.apkrelay.sample.MainActivity.onClick(MainActivity.java:42)</span> </pre>' +
      '<details class="framework-frames"> <summary> show 2 framework frames </summary> <pre class="frames">' +
      '<span class="frame frame-framework"> at android.view.View.performClick(View.java:7448)</span> ' +
      '<span class="frame frame-framework"> at android.os.Handler.handleCallback(Handler.java:938)</span> </pre> </details>' +
      '<pre class="frames"><span class="frame frame-library"> at okhttp3.RealCall.execute(RealCall.kt:154)</span> </pre>' +
      '<details class="framework-frames"> <summary> show 1 framework frame </summary> <pre class="frames">' +
      '<span class="frame frame-framework"> at java.lang.Thread.run(Thread.java:923)</span> </pre> </details>' +
      '</div>',
  );
});
