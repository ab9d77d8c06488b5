/**
 * The web administration's webhook forms (/ui/webhooks...): add an endpoint, its page (edit form
 * and delivery log), change it, send it a test delivery. Listed so that the document covers every
 * route; the forms are read by their pages (api/webhooks/web-pages.ts).
 */
import { html, page, post, seeOther } from '../web/contracts';

const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
const form = (fields: string) =>
  `(form: _csrf, ${fields}; a refusal is shown on the page with the input kept).`;

export const uiPostWebhooksContract = post(
  `Add a webhook endpoint ${form('url, one event:<type> field per event')}`,
  { '201': html('The list, with the new secret shown this once.'), '400': html('Refused.') },
);

const endpointPage = page(
  'A webhook endpoint: its edit form, a test button and its delivery log.',
  true,
  id,
);
export const uiGetWebhooksByIdContract = {
  ...endpointPage,
  responses: { ...endpointPage.responses, '404': html('No such endpoint.') },
};

export const uiPostWebhooksByIdContract = post(
  `Change a webhook endpoint ${form('url, event:<type> fields, enabled')}`,
  { '303': seeOther, '400': html('Refused.'), '404': html('No such endpoint.') },
  id,
);

export const uiPostWebhooksByIdTestContract = post(
  'Send a webhook endpoint a test delivery (form: _csrf).',
  { '303': seeOther, '404': html('No such endpoint.'), '429': html('Too many by hand.') },
  id,
);
