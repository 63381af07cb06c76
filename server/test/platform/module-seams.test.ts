import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The import seams eslint.config.js holds (issue 31): a route file never imports api/routes.ts
 * (which imports it), and a console feature never imports another feature. Each rule is run by
 * ESLint's own API on a planted file, so a config change that silently drops a rule fails here.
 */
const root = path.resolve(import.meta.dirname, '../../..');
// A planted file exists in memory only, in no tsconfig: it is parsed without types, so the type-aware
// rules (checked on the real files by `npm run lint`) are off here.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': 'off',
    },
  },
});

async function ruleErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return result!.messages.filter((message) => message.severity === 2).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('route files and api/routes.ts', () => {
  it('rejects a route file importing api/routes.ts', async () => {
    const errors = await ruleErrors(
      'server/src/api/tokens/planted.ts',
      "import type { RouteDeps } from '../routes.js';\nexport type Deps = RouteDeps;\n",
    );
    expect(errors).toEqual([expect.stringMatching(/^no-restricted-imports: .*route-deps\.js/)]);
  });

  it('lets a route file import api/route-deps.ts', async () => {
    const errors = await ruleErrors(
      'server/src/api/tokens/planted.ts',
      "import type { RouteDeps } from '../route-deps.js';\nexport type Deps = RouteDeps;\n",
    );
    expect(errors).toEqual([]);
  });
}, 60_000);

describe('console features', () => {
  const planted = 'web/src/features/tokens/components/Planted.tsx';

  it('rejects an import from another feature folder', async () => {
    const errors = await ruleErrors(
      planted,
      "import { useOptionSave } from '../../settings/hooks/useOptionSave';\nexport const hooks = [useOptionSave];\n",
    );
    expect(errors).toEqual([
      expect.stringMatching(
        /^boundaries\/dependencies: A console feature must not import another feature \(web\/src\/features\/settings\)/,
      ),
    ]);
  });

  it('lets a feature import its own files and the shared components/ and lib/', async () => {
    const code = [
      "import { tokenKeys } from '../api/keys';",
      "import { DataTable } from '../../../components/DataTable';",
      "import { renderQuota } from '../../../lib/format';",
      'export const parts = [tokenKeys, DataTable, renderQuota];',
      '',
    ].join('\n');
    expect(await ruleErrors(planted, code)).toEqual([]);
  });
}, 60_000);

describe('the console data layer', () => {
  const component = 'web/src/features/tokens/components/Planted.tsx';
  const endpoint = 'web/src/features/tokens/api/planted.ts';
  const invalidating = [
    "import { useQueryClient } from '@tanstack/react-query';",
    "import { tokenKeys } from '../api/keys';",
    'export function usePlanted() {',
    '  const queryClient = useQueryClient();',
    '  return () => queryClient.invalidateQueries({ queryKey: tokenKeys.all });',
    '}',
    '',
  ].join('\n');
  const mutating =
    "import { useMutation } from '@tanstack/react-query';\nexport const usePlanted = () => useMutation({ mutationFn: async () => 1 });\n";

  it('rejects invalidateQueries and useMutation in a component', async () => {
    expect(await ruleErrors(component, invalidating)).toEqual([
      expect.stringMatching(/^no-restricted-properties: 'invalidateQueries' .*mutation hook/),
    ]);
    expect(await ruleErrors(component, mutating)).toEqual([expect.stringMatching(/^no-restricted-imports: .*useMutation.*api\//)]);
  });

  it('lets an endpoint file in api/ build the mutation and invalidate by the exported keys', async () => {
    expect(await ruleErrors(endpoint, invalidating)).toEqual([]);
    expect(await ruleErrors(endpoint, mutating)).toEqual([]);
  });
}, 60_000);
