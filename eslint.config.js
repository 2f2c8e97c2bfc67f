import { includeIgnoreFile } from '@eslint/compat';
import js from '@eslint/js';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const STORE_BEHIND_ROOT = {
  group: ['**/store/**'],
  message: 'Only src/store and the composition root (src/services.ts) see the store; take a port from src/domain, handed in by src/services.ts.',
};
const NOTHING_OF_SERVING = {
  group: ['**/http/**', '**/serving.js'],
  message: 'The settings and the core load for every CLI command: nothing of serving (the HTTP app, src/serving.ts) may load with them.',
};

export default tseslint.config(
  // What git ignores (builds, data dirs, the local PostgreSQL, scratch folders) is never linted.
  includeIgnoreFile(fileURLToPath(new URL('.gitignore', import.meta.url))),
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
      eqeqeq: ['error', 'always'],
    },
  },
  { files: ['src/cli/**', 'test/**', 'bench/**', 'examples/**'], rules: { 'no-console': 'off' } },
  // The console's one script runs in the browser, served as is (src/http/console/console-assets.ts).
  { files: ['src/http/console/assets/**'], languageOptions: { globals: { document: 'readonly', navigator: 'readonly', fetch: 'readonly', Element: 'readonly' } } },
  {
    // Nothing outside src/store reaches the store: the composition root (src/services.ts) opens it and hands each
    // consumer a port or a domain service; `ugs import` (src/import-into-store.ts) opens the store it fills, and the
    // package's entry point names the Store type. (src/domain has its own, stricter rule below.)
    files: ['src/**'],
    ignores: ['src/store/**', 'src/domain/**', 'src/services.ts', 'src/config.ts', 'src/import-into-store.ts', 'src/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [STORE_BEHIND_ROOT] }] },
  },
  {
    // Every CLI command reads the settings and opens the core; serving's half of the root (src/serving.ts) stays out of both.
    files: ['src/config.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [STORE_BEHIND_ROOT, NOTHING_OF_SERVING] }] },
  },
  { files: ['src/services.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [NOTHING_OF_SERVING] }] } },
  {
    // Dependencies point inward: the domain declares the ports it needs and imports no adapter.
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/store/**', '**/http/**', '**/cli/**', '**/metrics/**', '**/client/**'], message: 'src/domain imports nothing from the adapters; declare a port in src/domain instead.' },
            { group: ['**/config.js', '**/services.js', '**/server-secret.js'], message: 'src/domain is pure: wiring and settings stay outside it.' },
          ],
        },
      ],
    },
  },
  {
    // The embed package runs in a dashboard's process: jose and node:*, nothing of the server (test/embed/embed-package-boundary.test.ts).
    files: ['src/embed/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!node:|jose$|\\./)', message: 'src/embed imports only jose, node:* and its own files.' }] }],
    },
  },
);
