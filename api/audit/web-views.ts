/**
 * The audit log page of the web administration (docs/audit.md): the filter form, a page of
 * entries in a table that scrolls sideways on a narrow window, the link to older ones.
 */
import type { AuditFilter, AuditPage } from '../../shared/audit/list';
import { AUDIT_ACTIONS } from '../../shared/audit/types';
import { html, type Html } from '../web/html';
import { when } from '../web/time';
import { layout, type Viewer } from '../web/views';
import { scrollTable } from '../web/table';

const iso = (d: Date | undefined) => (d ? d.toISOString() : '');

function filterForm(f: AuditFilter): Html {
  const text = (name: keyof AuditFilter, label: string) =>
    html`<label for="${name}">${label}</label>
      <input id="${name}" name="${name}" value="${String(f[name] ?? '')}" />`;
  return html`<form class="filters" method="get" action="/ui/audit">
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
export function auditPage(
  viewer: Viewer,
  now: Date,
  f: AuditFilter,
  page: AuditPage,
  older: string,
): string {
  const rows = page.entries.map(
    (e) =>
      html`<tr>
        <td>${when(e.at, now)}</td>
        <td>${e.actor.kind}: ${e.actor.name}</td>
        <td>${e.action}</td>
        <td>${e.resource.kind} ${e.resource.id}</td>
        <td>${e.address ?? '-'}</td>
        <td class="details">
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
      ${filterForm(f)}
      ${scrollTable(['When', 'Who', 'Action', 'Resource', 'Address', 'Details'], rows, { class: 'audit' })}
      <nav aria-label="Pages">${page.next ? html`<a href="${older}">Older</a>` : ''}</nav>`,
  );
}
