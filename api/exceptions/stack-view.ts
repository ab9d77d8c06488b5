/**
 * A stack trace as the report and issue pages show it: the app's own frames stand out, other
 * libraries' frames and the exception lines read plainly, and each run of framework frames
 * (android., java., kotlin. …: shared/exceptions/frames.ts) is folded into a `<details>` element
 * ("show N framework frames") that opens without JavaScript; its frames are muted.
 */
import { frameRuns, type FrameRun } from '../../shared/exceptions/frames';
import { html, type Html } from '../web/html';

function lines(run: FrameRun): Html[] {
  return run.lines.map((l) => html`<span class="frame frame-${run.kind}">${l}</span> `);
}

export function stackTrace(stack: readonly string[], appPackage: string): Html {
  const runs = frameRuns(stack, appPackage).map((run) =>
    run.kind === 'framework'
      ? html`<details class="framework-frames">
          <summary>
            show ${run.lines.length} framework frame${run.lines.length === 1 ? '' : 's'}
          </summary>
          <pre class="frames">${lines(run)}</pre>
        </details>`
      : html`<pre class="frames">${lines(run)}</pre>`,
  );
  return html`<div class="stack-trace">${runs}</div>`;
}
