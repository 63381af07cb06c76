import path from 'node:path';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// One Json type (issue 31): `Json` is declared once in packages/shared/src/json.ts; a local
// `type X = Record<string, unknown>` alias fails lint. Listed with every no-restricted-syntax block,
// because a later block's options for that rule replace an earlier block's.
const noLocalJsonAlias = {
  selector:
    "TSTypeAliasDeclaration[typeAnnotation.typeName.name='Record'][typeAnnotation.typeArguments.params.length=2][typeAnnotation.typeArguments.params.0.type='TSStringKeyword'][typeAnnotation.typeArguments.params.1.type='TSUnknownKeyword']",
  message: "Import the shared type instead of declaring a local one: import type { Json } from '@modelgate/shared'.",
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'e2e/artifacts/**', 'bench/results/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Type-aware rules that catch real defects (issue 31). Every TypeScript file is in a tsconfig
    // (server, web, packages/shared, e2e, bench) except the root vitest.config.ts, read with the
    // default project. A promise nobody awaits loses its rejection: await it, `.catch` it with a log,
    // or mark a deliberate fire-and-forget with `void` where the callee handles its own errors.
    files: ['**/*.{ts,tsx,mts,cts}'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // React Router's navigate() returns a promise only to say when the navigation ends; it does not reject.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', name: 'NavigateFunction', package: 'react-router' }] },
      ],
      // JSX attributes (antd onFinish/onClick/onConfirm) take async handlers that catch their own errors
      // (the http client shows the server's message); React ignores the returned promise. Other void
      // callbacks (Node events, Fastify hooks, array callbacks) are still checked.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      // A switch over a union without a default names every member, so a new member cannot slip past;
      // a default is the author's explicit choice for the rest (Stripe's hundreds of event types).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // Layers point down (docs/architecture.md): the management API reaches the relay only through
    // its public entries (probes, the provider registry, billing); the relay never imports the API.
    files: ['server/src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { [path.resolve(import.meta.dirname, 'scripts/eslint-ts-resolver.cjs')]: {} },
      'boundaries/files': [
        {
          category: 'relay-entry',
          pattern: ['server/src/relay/facade.ts', 'server/src/relay/probes.ts', 'server/src/relay/providers/registry.ts'],
        },
      ],
      'boundaries/include': ['server/src/**/*.ts'],
      'boundaries/elements': [
        { type: 'relay-entry', pattern: 'server/src/relay/billing' },
        { type: 'relay', pattern: 'server/src/relay' },
        { type: 'api', pattern: 'server/src/api' },
        { type: 'notify', pattern: 'server/src/notify' },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [
            {
              from: { element: { type: 'api' } },
              disallow: { to: { element: { type: 'relay' } } },
              message:
                'api/ may use the relay only through relay/facade.ts, relay/probes.ts, relay/providers/registry.ts and relay/billing/',
            },
            { from: { element: { type: 'api' } }, allow: { to: { file: { categories: 'relay-entry' } } } },
            {
              from: { element: { types: { anyOf: ['relay', 'relay-entry'] } } },
              disallow: { to: { element: { type: 'api' } } },
              message: 'relay/ must not import api/ (shared pieces live in context.ts or lib/)',
            },
            {
              from: { element: { types: { anyOf: ['relay', 'relay-entry'] } } },
              disallow: { to: { element: { type: 'notify' } } },
              message: 'relay/ must not import notify/: server.ts wires the quota reminder to the relay facade',
            },
          ],
        },
      ],
    },
  },
  {
    // One Json type (see noLocalJsonAlias); packages/shared/src/json.ts is the one declaration.
    files: ['**/*.{ts,tsx}'],
    ignores: ['packages/shared/src/json.ts'],
    rules: { 'no-restricted-syntax': ['error', noLocalJsonAlias] },
  },
  {
    // One upstream request path: outside providers/, requests are built by providers/upstream-request.ts.
    files: ['server/src/**/*.ts'],
    ignores: ['server/src/relay/providers/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[object.property.name='api'][property.name='url'], MemberExpression[object.property.name='api'][property.name='headers']",
          message:
            'Build upstream requests with relay/providers/upstream-request.ts (buildUpstreamRequest, modelListRequest), not adapter.api.',
        },
        noLocalJsonAlias,
      ],
    },
  },
  {
    // Small files (issue 31): at most 300 lines of code per source file, blank lines and comments
    // not counted. Tests are not limited (a test file is a list of cases). Data tables are the
    // exceptions, by name: the options registry (one entry per option) and the database table types.
    files: ['server/src/**/*.ts', 'web/src/**/*.{ts,tsx}', 'packages/shared/src/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}', 'server/src/options/registry.ts', 'server/src/db/schema.ts'],
    rules: { 'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }] },
  },
  {
    // CommonJS on purpose: ESLint's import-resolver loader require()s resolvers.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['server/test/**', 'e2e/**', 'bench/**', '**/*.test.ts', '**/*.test.tsx'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules, 'react-hooks/set-state-in-effect': 'off' },
  },
  // --- issue 31 (habits): seams between modules ---
  {
    // api/routes.ts imports every route file; a route file importing it back closes a circle.
    // What the route files share lives in api/route-deps.ts.
    files: ['server/src/api/*/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../routes.js', '../routes'],
              message: 'Import RouteDeps from ../route-deps.js: api/routes.ts imports the route files, not the other way round.',
            },
          ],
        },
      ],
    },
  },
  {
    // The console's data layer (CONTRIBUTING.md): each endpoint's file under features/*/api/ (or lib/api/)
    // holds its fetcher and its query or mutation hook, and its mutations invalidate the exported keys.
    // Screens call those hooks; they do not invalidate or build mutations themselves.
    files: ['web/src/**/*.{ts,tsx}'],
    ignores: ['web/src/features/*/api/**', 'web/src/lib/api/**', 'web/src/**/*.test.{ts,tsx}', 'web/src/test/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          property: 'invalidateQueries',
          message: "Call a mutation hook from the endpoint's file in api/: it invalidates the exported query keys.",
        },
        {
          property: 'refetchQueries',
          message: "Call a mutation hook from the endpoint's file in api/: it invalidates the exported query keys.",
        },
        {
          property: 'resetQueries',
          message: "Call a mutation hook from the endpoint's file in api/: it invalidates the exported query keys.",
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@tanstack/react-query',
              importNames: ['useMutation'],
              message: 'Mutations live with their endpoint in features/*/api/ (or lib/api/): call that hook.',
            },
          ],
        },
      ],
    },
  },
  {
    // Console features don't import each other (CONTRIBUTING.md): shared pieces live in web/src/components/
    // or web/src/lib/. A feature is web/src/features/<name>; an import into another name fails.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { [path.resolve(import.meta.dirname, 'scripts/eslint-ts-resolver.cjs')]: {} },
      'boundaries/include': ['web/src/**/*.{ts,tsx}'],
      'boundaries/elements': [{ type: 'web-feature', pattern: 'web/src/features/*', capture: ['feature'] }],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [
            {
              from: { element: { type: 'web-feature' } },
              disallow: { to: { element: { type: 'web-feature', captured: { feature: '!{{ from.element.captured.feature }}' } } } },
              message:
                'A console feature must not import another feature ({{ to.element.path }}): move the shared piece to web/src/components/ or web/src/lib/',
            },
          ],
        },
      ],
    },
  },
);
