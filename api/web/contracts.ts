/**
 * The web administration (/ui): HTML pages and form posts for browsers, authenticated by a session
 * cookie with a CSRF token in every form. Listed so that the document covers every route.
 */

export const html = (description: string) => ({ description, content: { 'text/html': {} } });
export const seeOther = { description: 'Redirect (POST/redirect/GET).' };
const refused = { description: 'Missing or wrong CSRF token, or no session.' };
const sessionSecurity = [{ session: [] }];
const pkg = [{ name: 'package', in: 'path', required: true, schema: { type: 'string' } }];

export function page(summary: string, session = true, parameters?: unknown[]) {
  return {
    summary,
    tags: ['web'],
    ...(session ? { security: sessionSecurity } : { security: [] }),
    ...(parameters ? { parameters } : {}),
    responses: {
      '200': html('The page.'),
      ...(session ? { '303': { description: 'No session: to the login page.' } } : {}),
      ...(parameters ? { '404': html('Not one of the account’s apps.') } : {}),
    },
  };
}

export function post(summary: string, statuses: Record<string, unknown>, parameters?: unknown[]) {
  return {
    summary,
    tags: ['web'],
    security: summary.startsWith('Sign up') || summary.startsWith('Log in') ? [] : sessionSecurity,
    ...(parameters ? { parameters } : {}),
    responses: { '403': refused, ...statuses },
  };
}

const asset = (summary: string, type: string) => ({
  summary,
  tags: ['web'],
  security: [],
  responses: { '200': { description: 'The file.', content: { [type]: {} } } },
});

export const webSecuritySchemes = {
  session: { type: 'apiKey', in: 'cookie', name: '__Host-apkrelay_session' },
};

export const uiGetHomeContract = {
  ...page('Web administration: to the apps list.', false),
  responses: { '303': seeOther },
};

export const uiGetStyleCssContract = asset('Web administration stylesheet.', 'text/css');

export const uiGetAppJsContract = asset('Web administration script.', 'text/javascript');

export const uiGetSignupContract = {
  ...page('Sign-up page.', false),
  responses: { '200': html('The form.'), '403': html('Sign-up is closed (SIGNUP=closed).') },
};

export const uiPostSignupContract = post('Sign up (form: email, password, _csrf).', {
  '303': seeOther,
  '400': html('Invalid email or password.'),
  '403': html('Sign-up is closed (SIGNUP=closed), or no CSRF token.'),
  '409': html('Email taken.'),
  '429': html('Too many sign-ups from this client; Retry-After.'),
});

export const uiGetLoginContract = page('Login page.', false);

export const uiPostLoginContract = post('Log in (form: email, password, _csrf); throttled.', {
  '303': seeOther,
  '401': html('Wrong email or password.'),
  '429': html('Too many failed attempts.'),
});

export const uiPostLogoutContract = post('Log out (form: _csrf).', { '303': seeOther });

export const uiGetAccountContract = page(
  'Account page: password change, sign out everywhere, device keys and CI tokens.',
);

export const uiPostAccountPasswordContract = post(
  'Change the password (form: current, password, confirm, _csrf); ends the other sessions.',
  {
    '303': { description: 'Changed: to the account page, with a renewed session cookie.' },
    '400': html('The new passwords differ or break the sign-up rules.'),
    '401': html('Wrong current password (counts against the login throttle).'),
    '429': html('Too many failed attempts; Retry-After.'),
  },
);

export const uiPostAccountSignOutEverywhereContract = post(
  'Sign out everywhere: end every session of the account (form: _csrf).',
  {
    '303': { description: 'To the login page; the session cookie is cleared.' },
  },
);

export const uiPostAccountKeysContract = post(
  'Create a device key or CI token (form: kind, name, apps, _csrf); 201 shows its secret once.',
  {
    '201': html('The account page with the new secret, shown this once.'),
    '400': html('A bad kind, name or app list.'),
  },
);

export const uiPostAccountKeysByIdRevokeContract = post(
  'Revoke a device key or CI token (form: _csrf).',
  { '303': seeOther, '404': html('No such key of this account.') },
  [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
);

export const uiPostAccountApiKeyRestrictionContract = post(
  'Restrict the account API key to the device routes, or lift it (form: deviceOnly, _csrf).',
  { '303': seeOther, '400': html('deviceOnly is neither true nor false.') },
);

export const uiGetAppsContract = page('Apps list.');

export const uiPostApksContract = post('Upload an APK of any package (multipart with _csrf).', {
  '303': seeOther,
  '202': html('Still processing.'),
  '422': html('Refused APK.'),
});

export const uiGetAppsByPackageContract = page('App page, tab APKs.', true, pkg);

export const uiPostAppsByPackageApksContract = post(
  'Upload an APK of this app (multipart with _csrf).',
  { '303': seeOther, '202': html('Still processing.'), '422': html('Refused APK.') },
  pkg,
);

export const uiGetAppsByPackageInstallationsContract = page(
  'App page, tab Installations.',
  true,
  pkg,
);

export const uiGetAppsByPackageExceptionsContract = page('App page, tab Exceptions.', true, pkg);

export const uiGetAppsByPackageExceptionsByIdContract = page(
  'One issue (id: its 32-hex fingerprint: trend, versions, devices, occurrences) or one report.',
  true,
  [...pkg, { name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
);

export const uiGetAppsByPackageExceptionsByIdScreenshotContract = {
  ...page("An exception report's screenshot.", true, [
    ...pkg,
    { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
  ]),
  responses: {
    '200': { description: 'The JPEG.', content: { 'image/jpeg': {} } },
    '404': html('No such report or no screenshot.'),
  },
};

export const uiPostApiKeyContract = post('Regenerate the API key (form: confirm=yes, _csrf).', {
  '303': seeOther,
  '400': html('Not confirmed.'),
});

export const uiPostAppsByPackageInstallationsByDeviceIdStatusContract = post(
  'Enable (within the plan) or disable an installation (form: status, _csrf).',
  { '303': seeOther, '400': html('Bad status.'), '404': html('No such installation.') },
  [...pkg, { name: 'deviceId', in: 'path', required: true, schema: { type: 'string' } }],
);

export const uiPostAppsByPackageCurrentContract = post(
  'Make an APK current (form: sha256, _csrf).',
  { '303': seeOther, '404': html('No such app or APK.') },
  pkg,
);

export const uiPostAppsByPackageDownloadLinksContract = post(
  'Create a download link and show its QR code (form: sha256, _csrf).',
  { '201': html('The link and its QR code.'), '404': html('No such app or APK.') },
  pkg,
);

export const uiGetAppsByPackageRolloutsContract = page(
  "App page, tab Rollouts: the rollout, its health numbers and decisions, the APK's funnel.",
  true,
  pkg,
);

export const uiPostAppsByPackageRolloutsContract = post(
  'Start a rollout (form: sha256, stages, metadataKey, metadataValues, deviceIds, _csrf).',
  {
    '303': seeOther,
    '400': html('Invalid stages or targeting, or the APK is the current one.'),
    '404': html('No such app or APK.'),
    '409': html('A rollout is running or paused.'),
  },
  pkg,
);

export const uiPostAppsByPackageRolloutsByActionContract = post(
  'Pause, resume, advance, complete or halt the rollout (form: _csrf).',
  {
    '303': seeOther,
    '404': html('No such app, rollout or action.'),
    '409': html('The rollout’s state does not allow the action.'),
  },
  [
    ...pkg,
    {
      name: 'action',
      in: 'path',
      required: true,
      schema: { type: 'string', enum: ['pause', 'resume', 'advance', 'complete', 'halt'] },
    },
  ],
);

export const uiGetAuditContract = page(
  'Audit log: filter by action, resource, actor, time; older pages.',
);

export const uiGetWebhooksContract = page(
  'Webhook endpoints, their latest deliveries, redelivery buttons.',
);

export const uiPostWebhookDeliveriesByDeliveryIdRedeliverContract = post(
  'Send a webhook delivery again (form: _csrf).',
  { '303': seeOther, '404': html('No such delivery.') },
  [{ name: 'deliveryId', in: 'path', required: true, schema: { type: 'string' } }],
);
