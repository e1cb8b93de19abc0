import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// The rooms of server/src and what each may import (docs/architecture.md, "Rules the linter holds").
const ROUTE_FILES = ['server/src/**/routes.ts', 'server/src/app.ts', 'server/src/serve.ts'];
const HTTP = {
  group: ['**/http/*'],
  message: 'Only route files (routes.ts, app.ts, serve.ts) use http/: domain code throws ApiError (errors.ts) and returns plain values.',
};
const RECORDS_FACE = {
  group: ['**/records/*', '**/records/*/**', '!**/records/index.js'],
  message: "Other rooms use the record pipeline through records/index.js, its face, not its internal files.",
};
const RECORDS_FACE_OR_ROUTES = { ...RECORDS_FACE, group: [...RECORDS_FACE.group, '!**/records/routes.js'] };
const RECORDS_BELOW = {
  group: ['**/realtime/*', '**/openapi/*', '**/ops/*', '**/admin/*', '**/tracking/*'],
  message: 'records/ is below realtime, openapi, ops, admin and tracking: they import it, never the reverse.',
};
const TRACKING_ON_DB = {
  group: ['../*/**', '!../db/**', '../*.js', '!../errors.js'],
  message: 'tracking/ (the write triggers, their installers, capture on demand) builds on db/ alone.',
};
const POLICIES_PURE = {
  group: ['../*/**', '!../db/schema.js', '../*.js', '!../errors.js'],
  message: 'policies/ is the one access decision: pure, on the schema cache\'s types and errors only.',
};

function restrict(files, patterns, ignores = []) {
  return { files, ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

function serverLayers() {
  const rooms = ['server/src/records/**', 'server/src/tracking/**', 'server/src/policies/**', 'server/src/http/**'];
  return [
    restrict(['server/src/records/**/*.ts'], [HTTP, RECORDS_BELOW], ['server/src/records/routes.ts']),
    restrict(['server/src/records/routes.ts'], [RECORDS_BELOW]),
    restrict(['server/src/tracking/**/*.ts'], [HTTP, TRACKING_ON_DB]),
    restrict(['server/src/policies/**/*.ts'], [HTTP, POLICIES_PURE]),
    restrict(['server/src/**/*.ts'], [HTTP, RECORDS_FACE], [...rooms, ...ROUTE_FILES]),
    restrict(ROUTE_FILES, [RECORDS_FACE_OR_ROUTES], rooms),
    // Server tests talk to the server over HTTP and read its sources; the client's and console's are not theirs.
    restrict(['server/test/**/*.ts', 'server/src/**/*.test.ts', 'bench/**/*.ts', 'test-support/**/*.ts'], [
      { group: ['**/client/src/**', '**/console/src/**', '@basalt/client'], message: 'Server tests and the bench share code through @basalt/contract or test-support/, not the client or console sources.' },
    ]),
  ];
}

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'test-results/**', 'playwright-report/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['console/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  // The layering, held by the linter rather than by memory (docs/architecture.md).
  {
    files: ['client/**/*.ts', 'console/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/server/**', '@basalt/server', '@basalt/server/**'], message: 'The client and the console never import the server: share through @basalt/contract.' }] },
      ],
    },
  },
  {
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../*/**', '@basalt/*'], message: 'contract/ is the bottom layer: it imports nothing of the other workspaces.' }] },
      ],
    },
  },
  // server/src: each file is in exactly one of these blocks (a later block's rule would replace an earlier one's).
  ...serverLayers(),
  {
    files: ['server/src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*/**', '../*.js', '!../errors.js', '!../ids.js', '!../logger.js'],
              message: 'http/ keeps the envelope, body limits, CORS and logging: it imports only the leaves (errors, ids, logger), never a domain folder.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
);
