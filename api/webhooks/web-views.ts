/**
 * Views of the webhooks pages (docs/webhooks.md): the endpoints list with the form adding one
 * (its secret shown once, on the page answering the creation), and an endpoint's page: the form
 * changing it, the test button and its delivery log with a Redeliver button per delivery.
 */
import type { DeliveryDoc, EndpointDoc } from '../../shared/webhooks/types';
import { WEBHOOK_EVENTS } from '../../shared/webhooks/types';
import { html, type Html } from '../web/html';
import { when } from '../web/time';
import { layout, may, postButton, type Viewer } from '../web/views';
import { scrollTable } from '../web/table';

/** What the add or edit form shows: the input as sent, and why it was refused. */
export interface EndpointInput {
  readonly url: string;
  readonly events: readonly string[];
  readonly enabled: boolean;
  readonly problem?: string | null;
}

export interface EndpointSummary {
  readonly doc: EndpointDoc;
  readonly latest: DeliveryDoc | null;
}

const csrf = (viewer: Viewer) => html`<input type="hidden" name="_csrf" value="${viewer.csrf}" />`;
const problemOf = (input: EndpointInput) =>
  input.problem ? html`<p class="error" role="alert">${input.problem}</p>` : '';

export function stateText(doc: EndpointDoc): string {
  if (doc.enabled) return doc.failingSince ? 'enabled, failing' : 'enabled';
  return doc.disabledReason === 'failing' ? 'disabled after failing' : 'disabled';
}

/** The fields both forms share: the URL and one checkbox per event. */
function endpointFields(input: EndpointInput, prefix: string): Html {
  return html`<label for="${prefix}-url">URL (https://)</label>
    <input
      id="${prefix}-url"
      name="url"
      type="url"
      required
      maxlength="2000"
      value="${input.url}"
    />
    <fieldset>
      <legend>Events</legend>
      ${WEBHOOK_EVENTS.map(
        (e) =>
          html`<label
              ><input
                type="checkbox"
                name="event:${e}"
                value="on"
                ${input.events.includes(e) ? html`checked` : ''}
              />
              ${e}</label
            ><br />`,
      )}
    </fieldset>`;
}

function addForm(viewer: Viewer, input: EndpointInput): Html {
  return html`<h2>Add an endpoint</h2>
    ${problemOf(input)}
    <form class="stack" method="post" action="/ui/webhooks">
      ${csrf(viewer)} ${endpointFields(input, 'new')}
      <button type="submit">Add endpoint</button>
    </form>`;
}

function endpointRow(s: EndpointSummary, now: Date): Html {
  const id = s.doc._id.toHexString();
  return html`<tr data-endpoint="${id}">
    <td><a href="/ui/webhooks/${id}">${s.doc.url}</a></td>
    <td>${s.doc.events.join(', ')}</td>
    <td>${stateText(s.doc)}</td>
    <td>${s.latest ? html`${s.latest.state} · ${when(s.latest.createdAt, now)}` : 'none yet'}</td>
  </tr>`;
}

/** The list; `secret`: the endpoint just added, its secret shown this once. */
export function webhooksPage(
  viewer: Viewer,
  now: Date,
  endpoints: readonly EndpointSummary[],
  input: EndpointInput,
  created: { readonly url: string; readonly secret: string } | null = null,
): string {
  const table = scrollTable(
    ['URL', 'Events', 'State', 'Latest delivery'],
    endpoints.map((s) => endpointRow(s, now)),
    { class: 'webhooks' },
  );
  return layout(
    'Webhooks',
    viewer,
    html`<h1>Webhooks</h1>
      ${
        created
          ? html`<p class="notice" role="status">
              Endpoint ${created.url} added. Its signing secret:
              <code class="secret">${created.secret}</code> — copy it now, it is not shown again.
            </p>`
          : ''
      }
      ${endpoints.length ? table : html`<p>No endpoints yet.</p>`}
      ${may(viewer, 'manage') ? addForm(viewer, input) : ''}`,
  );
}

function deliveryRow(viewer: Viewer, now: Date, d: DeliveryDoc): Html {
  const last = d.attempts.at(-1);
  return html`<tr data-delivery="${d._id.toHexString()}">
    <td>${when(d.createdAt, now)}</td>
    <td>${d.event}</td>
    <td data-field="state">${d.state}</td>
    <td>${d.attempts.length}</td>
    <td>
      ${
        last
          ? html`${last.statusCode ?? 'no reply'} in ${last.durationMs} ms, ${when(last.at, now)}:
              <code>${last.excerpt}</code>`
          : '-'
      }
    </td>
    <td>
      ${
        may(viewer, 'manage')
          ? postButton(
              viewer,
              `/ui/webhook-deliveries/${d._id.toHexString()}/redeliver`,
              'Redeliver',
            )
          : ''
      }
    </td>
  </tr>`;
}

function editForm(viewer: Viewer, id: string, input: EndpointInput): Html {
  return html`<h2>Change</h2>
    ${problemOf(input)}
    <form class="stack" method="post" action="/ui/webhooks/${id}">
      ${csrf(viewer)} ${endpointFields(input, 'edit')}
      <label
        ><input type="checkbox" name="enabled" value="on" ${input.enabled ? html`checked` : ''} />
        Enabled</label
      >
      <button type="submit">Save</button>
    </form>
    <form class="stack" method="post" action="/ui/webhooks/${id}/test">
      ${csrf(viewer)}
      <button type="submit">Send a test delivery</button>
    </form>`;
}

/** One endpoint: its state, the edit form and test button (for managers), its delivery log. */
export function endpointPage(
  viewer: Viewer,
  now: Date,
  doc: EndpointDoc,
  deliveries: readonly DeliveryDoc[],
  input: EndpointInput,
): string {
  const id = doc._id.toHexString();
  const log = scrollTable(
    ['When', 'Event', 'State', 'Attempts', 'Last reply', ''],
    deliveries.map((d) => deliveryRow(viewer, now, d)),
    { class: 'deliveries' },
  );
  return layout(
    'Webhook',
    viewer,
    html`<p><a href="/ui/webhooks">Webhooks</a> ›</p>
      <h1>${doc.url}</h1>
      <p>
        ${stateText(doc)} · added ${when(doc.createdAt, now)} · ${doc.events.join(', ')}
        ${doc.failingSince ? html` · failing since ${when(doc.failingSince, now)}` : ''}
      </p>
      ${may(viewer, 'manage') ? editForm(viewer, id, input) : ''}
      <h2>Deliveries</h2>
      ${deliveries.length ? log : html`<p>No deliveries yet.</p>`}`,
  );
}
