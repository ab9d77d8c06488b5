/** Views of the audit log and webhooks pages of the web administration (docs/audit.md). */
import type { AuditFilter, AuditPage } from '../../shared/audit/list';
import { AUDIT_ACTIONS } from '../../shared/audit/types';
import type { DeliveryDoc, EndpointDoc } from '../../shared/webhooks/types';
import { html, type Html } from '../web/html';
import { layout, type Viewer } from '../web/views';

const iso = (d: Date | undefined) => (d ? d.toISOString() : '');

function table(headers: readonly string[], rows: readonly Html[]): Html {
  return html`<table>
    <thead>
      <tr>
        ${headers.map((h) => html`<th scope="col">${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function filterForm(f: AuditFilter): Html {
  const text = (name: keyof AuditFilter, label: string) =>
    html`<label for="${name}">${label}</label>
      <input id="${name}" name="${name}" value="${String(f[name] ?? '')}" />`;
  return html`<form method="get" action="/ui/audit">
    <label for="action">Action</label>
    <select id="action" name="action">
      <option value="">any</option>
      ${AUDIT_ACTIONS.map(
        (a) => html`<option value="${a}" ${a === f.action ? html`selected` : ''}>${a}</option>`,
      )}
    </select>
    ${text('resourceKind', 'Resource kind')} ${text('resourceId', 'Resource id')}
    ${text('actorKind', 'Actor kind')}
    <label for="from">From (ISO 8601)</label>
    <input id="from" name="from" value="${iso(f.from)}" />
    <label for="to">To</label>
    <input id="to" name="to" value="${iso(f.to)}" />
    <button type="submit">Filter</button>
  </form>`;
}

/** The audit log page: the filter form, a page of entries, the link to older ones. */
export function auditPage(viewer: Viewer, f: AuditFilter, page: AuditPage, older: string): string {
  const rows = page.entries.map(
    (e) =>
      html`<tr>
        <td>${e.at.toISOString()}</td>
        <td>${e.actor.kind}: ${e.actor.name}</td>
        <td>${e.action}</td>
        <td>${e.resource.kind} ${e.resource.id}</td>
        <td>${e.address ?? '-'}</td>
        <td>
          ${Object.entries(e.details)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(' ')}
        </td>
      </tr>`,
  );
  return layout(
    'Audit log',
    viewer,
    html`<h1>Audit log</h1>
      ${filterForm(f)} ${table(['When', 'Who', 'Action', 'Resource', 'Address', 'Details'], rows)}
      <nav aria-label="Pages">${page.next ? html`<a href="${older}">Older</a>` : ''}</nav>`,
  );
}

function deliveryRow(viewer: Viewer, d: DeliveryDoc): Html {
  const last = d.attempts.at(-1);
  return html`<tr>
    <td>${d.createdAt.toISOString()}</td>
    <td>${d.event}</td>
    <td>${d.state}</td>
    <td>${d.attempts.length}</td>
    <td>
      ${last ? `${last.statusCode ?? 'no reply'} in ${last.durationMs} ms: ${last.excerpt}` : '-'}
    </td>
    <td>
      <form
        class="inline"
        method="post"
        action="/ui/webhook-deliveries/${d._id.toHexString()}/redeliver"
      >
        <input type="hidden" name="_csrf" value="${viewer.csrf}" />
        <button type="submit">Redeliver</button>
      </form>
    </td>
  </tr>`;
}

/** The webhooks page: each endpoint with its latest deliveries and a redeliver button. */
export function webhooksPage(
  viewer: Viewer,
  endpoints: ReadonlyArray<{ doc: EndpointDoc; deliveries: readonly DeliveryDoc[] }>,
): string {
  const sections = endpoints.map(
    ({ doc, deliveries }) =>
      html`<section>
        <h2>${doc.url}</h2>
        <p>
          ${doc.enabled ? 'Enabled' : `Disabled (${doc.disabledReason ?? 'owner'})`} ·
          ${doc.events.join(', ')}
        </p>
        ${table(
          ['When', 'Event', 'State', 'Attempts', 'Last reply', 'Action'],
          deliveries.map((d) => deliveryRow(viewer, d)),
        )}
      </section>`,
  );
  return layout(
    'Webhooks',
    viewer,
    html`<h1>Webhooks</h1>
      <p>Endpoints are added and changed through the JSON API (docs/webhooks.md).</p>
      ${endpoints.length ? sections : html`<p>No endpoints.</p>`}`,
  );
}
