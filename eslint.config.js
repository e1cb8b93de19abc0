import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

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
  {
    files: ['server/src/**/*.ts'],
    ignores: ['server/src/**/routes.ts', 'server/src/app.ts', 'server/src/serve.ts', 'server/src/http/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/http/*'],
              message: 'Only route files (routes.ts, app.ts, serve.ts) use http/: domain code throws ApiError (errors.ts) and returns plain values.',
            },
          ],
        },
      ],
    },
  },
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
