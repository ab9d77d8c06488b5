/** The apps list's fleet figures (api/apps/fleet.ts), part of `GET /api/v2/apps` (AppSummary). */

const counted = (description: string) => ({ type: 'integer', description });

export const appSchemas = {
  AppFleet: {
    type: 'object',
    description: "The app's fleet at a glance: what the web administration's apps list draws.",
    required: [
      'installations',
      'online',
      'offline',
      'enabled',
      'versions',
      'rollout',
      'unhandledHourly',
      'exceptions24h',
    ],
    properties: {
      installations: counted("The app's installations."),
      online: counted('Seen within three heartbeats.'),
      offline: counted('installations − online.'),
      enabled: counted('Enabled (holding a plan seat).'),
      versions: {
        type: 'array',
        description:
          'Installations by the APK they report running; highest versionCode first, unknown hashes, then no hash, last.',
        items: {
          type: 'object',
          required: ['md5', 'versionCode', 'versionName', 'count', 'ahead'],
          properties: {
            md5: { type: ['string', 'null'] },
            versionCode: { type: ['integer', 'null'] },
            versionName: { type: ['string', 'null'] },
            count: { type: 'integer' },
            ahead: {
              type: 'boolean',
              description:
                'Above the current APK and offered by no running or paused rollout (installed from a rollout then halted).',
            },
          },
        },
      },
      rollout: {
        type: ['object', 'null'],
        description:
          'Running, paused, or halted while the app is still on the APK it started from; else null.',
        properties: {
          state: { enum: ['running', 'paused', 'halted'] },
          percent: { type: 'number' },
          version: { type: 'string', description: 'The rolled-out APK: "name (code)".' },
          haltReason: {
            type: ['string', 'null'],
            description: 'Why it was halted, in one sentence from its decision history.',
          },
        },
      },
      unhandledHourly: {
        type: 'array',
        items: { type: 'integer' },
        minItems: 24,
        maxItems: 24,
        description:
          'Unhandled crash reports received in each of the 24 hours before now, oldest first.',
      },
      exceptions24h: counted('Every report of the last 24 hours (what the 24 h limit counts).'),
    },
  },
};
