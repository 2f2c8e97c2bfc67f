import { includeIgnoreFile } from '@eslint/compat';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier/flat';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, lowest first (README, Layout): each top folder may import its own files and the folders
 * before it here, never one after it. test/architecture/import-layers.test.ts reads this list and checks the whole
 * import graph against it (no loop between folders, no import up a layer, no concept core reaching into another
 * concept's adapters), and README's Layout for the same order.
 */
export const LAYERS = [
  // The published verifier: it imports nothing of the server (its own rule below); only cli/ and isolation/ import it.
  'embed',
  // What every part shares; what the credentials are and how they are sealed; what every adapter uses.
  'kernel',
  'secrets',
  'platform',
  // What a write leaves (an audit record, an event, a revocation entry), and the shapes they share.
  'audit',
  'events',
  'consequences',
  // The concepts, each over the ones it names.
  'api-keys',
  'signing-keys',
  'console',
  'data-sources',
  'group-tags',
  'user-groups',
  'viewers',
  'usage',
  'embed-sessions',
  'metabase',
  'customers',
  'webhooks',
  'transfer',
  // The typed client (over the concepts' wire schemas), the store adapters, the composition root, the isolation
  // check's engine, the CLI. (src/index.ts, the package's entry point, is above them all.)
  'client',
  'store',
  'app',
  'isolation',
  'cli',
];

// The concepts (README, Layout): each folder holds its model, port and service directly, and its adapters in
// http/ (routes), pages/ (console pages), delivery/ (outbound webhooks) and check/ (a data source's connection
// check). kernel/ and consequences/, below them, hold cores only and keep the same rule.
export const CONCEPTS = [
  'api-keys',
  'audit',
  'consequences',
  'console',
  'customers',
  'data-sources',
  'embed-sessions',
  'events',
  'group-tags',
  'kernel',
  'metabase',
  'secrets',
  'signing-keys',
  'transfer',
  'usage',
  'user-groups',
  'viewers',
  'webhooks',
];
const CONCEPT_CORE = `src/{${CONCEPTS.join(',')}}/*.ts`;

const STORE_BEHIND_ROOT = {
  group: ['**/store/**'],
  message:
    'Only src/store and the composition root (src/app/core.ts) see the store; take the port a concept declares, handed in by src/app/core.ts.',
};
const NOTHING_OF_SERVING = {
  group: ['**/http/**', '**/serving.js'],
  message:
    'The settings and the core load for every CLI command: nothing of serving (the HTTP app, src/app/serving.ts) may load with them.',
};

export default tseslint.config(
  // What git ignores (builds, data dirs, the local PostgreSQL, scratch folders) is never linted.
  includeIgnoreFile(fileURLToPath(new URL('.gitignore', import.meta.url))),
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Prettier decides layout (`npm run format`; `npm run lint` checks it), so no rule here argues with it.
  prettier,
  {
    // Rules that need the types: this code is full of promises, and one left floating or handed to a
    // callback that ignores it loses its rejection.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: fileURLToPath(new URL('.', import.meta.url)) } },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
      eqeqeq: ['error', 'always'],
      // What Prettier cannot break stays over its width: a string, a template literal, a URL. Comments it
      // does not rewrap, so they are held to the width here (and rewrapped by hand).
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  { files: ['src/cli/**', 'test/**', 'bench/**', 'examples/**'], rules: { 'no-console': 'off' } },
  // Cube loads its configuration with require(): examples/cube is CommonJS (its own package.json says so).
  {
    files: ['examples/cube/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The console's one script runs in the browser, served as is (src/console/pages/console-assets.ts).
  {
    files: ['src/console/assets/**'],
    languageOptions: { globals: { document: 'readonly', navigator: 'readonly', fetch: 'readonly', Element: 'readonly' } },
  },
  // The embed scripts run in the customer's page and in the dashboard's frame, served as is (src/embed-sessions/http/embed-scripts.ts).
  {
    files: ['src/embed/browser/**'],
    languageOptions: {
      globals: {
        window: 'readonly',
        location: 'readonly',
        crypto: 'readonly',
        atob: 'readonly',
        TextDecoder: 'readonly',
        HTMLIFrameElement: 'readonly',
        document: 'readonly',
        ResizeObserver: 'readonly',
      },
    },
  },
  // The layer order above, folder by folder: a folder imports nothing of a folder after it (a rule of its own name, so
  // that the rules below, on the same files, do not replace it).
  ...LAYERS.slice(0, -1).map((folder, i) => ({
    files: [`src/${folder}/**`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: LAYERS.slice(i + 1).map((above) => `**/${above}/**`),
              message: `src/${folder}/ is below ${LAYERS.slice(i + 1).join(', ')} (LAYERS in eslint.config.js): it imports none of them.`,
            },
          ],
        },
      ],
    },
  })),
  {
    // Nothing outside src/store reaches the store: the composition root (src/app/core.ts) opens it and hands each
    // consumer a port or a domain service; `ugs import` (src/app/import-into-store.ts) opens the store it fills, and the
    // package's entry point names the Store type. (A concept's core has its own, stricter rule below.)
    files: ['src/**'],
    ignores: ['src/store/**', CONCEPT_CORE, 'src/app/core.ts', 'src/platform/config.ts', 'src/app/import-into-store.ts', 'src/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [STORE_BEHIND_ROOT] }] },
  },
  {
    // Every CLI command reads the settings and opens the core; serving's half of the root (src/app/serving.ts) stays out of both.
    files: ['src/platform/config.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [STORE_BEHIND_ROOT, NOTHING_OF_SERVING] }] },
  },
  { files: ['src/app/core.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [NOTHING_OF_SERVING] }] } },
  {
    // Dependencies point inward: a concept's core (the files directly in its folder: model, port, service), the
    // shared kernel and the consequences declare the ports they need and import no adapter: not the store, not its
    // own or another concept's http/, pages/, delivery/ or file/, not the platform (HTTP kit, config), not the
    // composition root, not a driver or the web framework.
    files: [CONCEPT_CORE],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/store/**',
                '**/http/**',
                '**/pages/**',
                '**/delivery/**',
                '**/check/**',
                '**/file/**',
                '**/cli/**',
                '**/platform/**',
                '**/client/**',
                '**/app/**',
                '**/isolation/**',
              ],
              message: "A concept's core imports no adapter and no plumbing; declare a port in the concept instead.",
            },
            {
              group: ['fastify', '@fastify/*', 'pg', 'better-sqlite3', 'kysely', 'pino', 'prom-client'],
              message: "A concept's core is pure: drivers, the web framework and logging stay outside it.",
            },
          ],
        },
      ],
    },
  },
  {
    // The embed package runs in a dashboard's process: jose, pg (the data router's driver, loaded with its first run) and node:*,
    // nothing of the server (test/embed/embed-package-boundary.test.ts).
    files: ['src/embed/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!node:|jose$|pg$|\\./)', message: 'src/embed imports only jose, pg, node:* and its own files.' }] },
      ],
    },
  },
);
