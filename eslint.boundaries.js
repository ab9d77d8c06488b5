// Which top-level folder may import which: the house's layering (ops -> api/workers -> shared),
// with the device client apart from the server, and the wire formats (device-client/protocol/,
// imported by both) apart from everything. Used by eslint.config.mjs and checked by
// test/unit/eslint.boundaries.test.ts.
const restrict = (folders, why) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: folders.flatMap((f) => [`**/${f}`, `**/${f}/**`]),
          message: why,
        },
      ],
    },
  ],
});

module.exports = [
  {
    files: ['device-client/**/*.ts'],
    rules: restrict(
      ['shared', 'api', 'workers', 'ops'],
      'The device client runs on devices: it imports nothing of the server.',
    ),
  },
  {
    // Last for these files, so it replaces the device-client rule above (the stricter of the two).
    files: ['device-client/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./)',
              message:
                'device-client/protocol/ is the wire formats both the server and the devices import: ' +
                'it imports only its own files (no Node module, no package, nothing of the client).',
            },
          ],
        },
      ],
    },
  },
  {
    // Last for these files: the patch formats also import pako (zlib 1.2.13's deflate, byte for
    // byte), which ARDELTA2's recompression needs on both sides (docs/delta-updates.md).
    files: ['device-client/protocol/delta/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|pako$)',
              message:
                'device-client/protocol/delta/ imports only its own files and pako (the deflater ' +
                'both the server and the devices recompress with).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: restrict(
      ['api', 'workers', 'ops'],
      'shared/ is the layer below api/, workers/ and ops/: it imports none of them.',
    ),
  },
  {
    files: ['workers/**/*.ts'],
    rules: restrict(['api', 'ops'], 'Workers do not depend on the HTTP edge nor on ops/.'),
  },
  {
    files: ['api/**/*.ts'],
    rules: restrict(['workers', 'ops'], 'The API does not depend on workers/ nor on ops/.'),
  },
];
