/**
 * The download's Content-Disposition, from a hand-written table: PushLink's Flutter download script
 * needs `attachment;filename=` at the very start (pushlink-clients.md); a name that is not a plain
 * token gets a safe token and its real form in `filename*`.
 */
import { attachmentDisposition } from '../../../../api/downloads/content-disposition';

test.each([
  ['dev.apkrelay.sample.apk', 'attachment;filename=dev.apkrelay.sample.apk'],
  ['com.example_app.Kiosk2.apk', 'attachment;filename=com.example_app.Kiosk2.apk'],
  [
    "evil.pkg;filename*=UTF-8''evil.html;x=.apk",
    'attachment;filename=evil.pkg_filename__UTF-8__evil.html_x_.apk; ' +
      "filename*=UTF-8''evil.pkg%3Bfilename%2A%3DUTF-8%27%27evil.html%3Bx%3D.apk",
  ],
  [
    'caf\u00e9 "x".apk',
    "attachment;filename=caf___x_.apk; filename*=UTF-8''caf%C3%A9%20%22x%22.apk",
  ],
])('%s', (name, header) => {
  expect(attachmentDisposition(name)).toBe(header);
});
