/** The web administration's only stylesheet and script, served from the admin host ('self'). */

export const STYLE_CSS = `
:root { font-family: system-ui, sans-serif; color: #1d2330; background: #f6f7f9; }
body { margin: 0; }
header { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center;
  padding: .6rem 1rem; background: #1d2330; color: #fff; }
header a { color: #fff; }
header .brand { font-weight: 700; text-decoration: none; }
header nav { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; flex: 1 1 auto;
  min-width: 0; }
header .who { overflow-wrap: anywhere; }
header .key { margin-left: auto; }
header .key summary { cursor: pointer; }
header .key .reveal { text-decoration: underline; }
header .key[open] { flex-basis: 100%; }
header .key-full { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center;
  margin-top: .4rem; }
header .key input { width: min(22rem, 100%); font-family: monospace; }
.skip { position: absolute; left: -100vw; top: .4rem; z-index: 10; padding: .4rem .8rem;
  background: #fff; color: #1d2330; }
.skip:focus { left: .4rem; }
main { max-width: 72rem; margin: 1rem auto; padding: 0 1rem; }
main:focus { outline: none; }
main h1, main h2, main p { overflow-wrap: anywhere; }
.table-scroll { overflow-x: auto; max-width: 100%; margin-bottom: .6rem; }
/* A table no page wrapped yet scrolls by itself rather than widen the page. */
main table:not(.table-scroll > table) { display: block; max-width: 100%; overflow-x: auto; }
.chart svg, main svg { max-width: 100%; height: auto; }
img { max-width: 100%; }
code { overflow-wrap: anywhere; }
input, select, textarea { max-width: 100%; box-sizing: border-box; }
.not-found { font-size: 1.1rem; }
form.filters { display: flex; flex-wrap: wrap; gap: .4rem .8rem; align-items: center;
  margin-bottom: .8rem; }
table.audit td.details, table.deliveries code { overflow-wrap: anywhere; min-width: 12rem; }
fieldset { border: 1px solid #d6d9e0; }
form.stack { display: grid; gap: .6rem; max-width: 22rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { border: 1px solid #d6d9e0; padding: .35rem .5rem; text-align: left; vertical-align: top; }
nav.tabs { display: flex; flex-wrap: wrap; gap: .3rem; margin: 1rem 0; }
nav.tabs a { padding: .4rem .8rem; border: 1px solid #d6d9e0; border-radius: .3rem .3rem 0 0;
  text-decoration: none; color: inherit; background: #fff; }
nav.tabs a[aria-current="page"] { background: #1d2330; color: #fff; }
.badge { background: #1f7a3a; color: #fff; border-radius: .6rem; padding: 0 .5rem; }
.funnel { display: grid; grid-template-columns: auto auto; gap: 0 .5rem; margin: 0; }
.funnel dd { margin: 0; text-align: right; }
.rollout-funnel { width: max-content; margin-bottom: .6rem; }
dl.rollout { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
dl.rollout dt { font-weight: 600; }
dl.rollout dd { margin: 0; }
.rollout-actions { display: flex; flex-wrap: wrap; gap: .4rem; margin: .6rem 0; }
.chart { margin: 0 0 .6rem; }
.chart svg { max-width: 100%; height: auto; }
.chart-summary { font-size: .85em; color: #4a5568; }
.fleet { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(min(22rem, 100%), 1fr)); }
.fleet-app { background: #fff; border: 1px solid #d6d9e0; padding: .2rem 1rem .6rem; min-width: 0; }
.badge-running { background: #2b6cb0; }
.badge-paused { background: #b7791f; }
.badge-halted { background: #c53030; }
figure.adoption { margin: 0 0 1rem; }
figure.adoption svg { max-width: 100%; height: auto; background: #fff; }
.adoption-now { width: auto; }
.adoption-now th { text-align: left; font-weight: normal; }
.notice { background: #fff4d6; border: 1px solid #e0c060; padding: .5rem; }
.error { background: #fde2e2; border: 1px solid #d07070; padding: .5rem; }
.inline { display: inline; }
code { font-size: .9em; }
img.shot { max-width: 24rem; border: 1px solid #d6d9e0; }
pre { background: #fff; border: 1px solid #d6d9e0; padding: .5rem; overflow-x: auto; }
img.qr { width: 16rem; height: 16rem; background: #fff; }
.dot-online { color: #1f7a3a; }
.dot-offline { color: #9aa1ad; }
.summary-strip ul.versions { display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; padding: 0;
  list-style: none; }
.chart svg .axis { stroke: #4a5160; }
.chart svg .grid { stroke: #e3e6ec; }
.chart svg text { font-size: 11px; fill: #4a5160; }
.stack-trace pre.frames { margin: 0; border: 0; padding: 0 .5rem; }
.stack-trace { background: #fff; border: 1px solid #d6d9e0; padding: .4rem 0; }
.frame-app { font-weight: 700; }
.frame-framework { color: #8a909c; }
details.framework-frames > summary { color: #8a909c; padding: 0 .5rem; cursor: pointer; }
`;

/**
 * Copy buttons, upload progress and local times: progressive enhancement; every page works
 * without it.
 */
export const APP_JS = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy], [data-copy-text]');
  if (!button) return;
  var text = button.dataset.copyText;
  if (text === undefined) {
    var field = document.getElementById(button.dataset.copy);
    text = field ? field.value : '';
  }
  if (navigator.clipboard) navigator.clipboard.writeText(text).catch(function () {});
});
document.querySelectorAll('form[enctype="multipart/form-data"]').forEach(function (form) {
  form.addEventListener('submit', function (event) {
    if (!window.XMLHttpRequest || !window.FormData) return;
    event.preventDefault();
    var progress = form.querySelector('progress') || document.createElement('progress');
    progress.max = 100;
    progress.value = 0;
    progress.setAttribute('aria-label', 'Upload progress');
    form.appendChild(progress);
    var message = form.querySelector('.error') || document.createElement('p');
    message.className = 'error';
    message.setAttribute('role', 'alert');
    message.hidden = true;
    form.appendChild(message);
    var button = form.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    var fail = function (text) {
      message.textContent = text;
      message.hidden = false;
      if (button) button.disabled = false;
    };
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.upload.onprogress = function (e) {
      if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100);
    };
    xhr.onload = function () {
      if (xhr.status === 200 && xhr.responseURL && xhr.responseURL !== form.action) {
        window.location.assign(xhr.responseURL);
        return;
      }
      var doc = new DOMParser().parseFromString(xhr.responseText, 'text/html');
      var detail = doc.querySelector('main p');
      fail(detail ? detail.textContent : 'Upload failed (' + xhr.status + ').');
    };
    xhr.onerror = function () {
      fail('Upload failed: network error.');
    };
    xhr.send(new FormData(form));
  });
});
// Relative times (api/web/time.ts: they carry the exact time as title) keep their text.
document.querySelectorAll('time[datetime]:not([title])').forEach(function (el) {
  var d = new Date(el.getAttribute('datetime'));
  if (!isNaN(d.getTime())) el.textContent = d.toLocaleString();
});
`;
