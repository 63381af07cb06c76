// After the API suite (npm test): every /api route must have answered at least one success that
// matched its declared schema, and no answer may have broken one (server/src/api/response-check.ts
// writes what it saw to node_modules/.cache/modelgate-test/api-contract).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const dir = new URL('../node_modules/.cache/modelgate-test/api-contract/', import.meta.url).pathname;
const lines = (file) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];

if (!existsSync(`${dir}routes.txt`)) {
  console.error(`✗ API contract: ${dir} has no routes.txt (did the API suite run with MODELGATE_RESPONSE_CHECK_DIR?)`);
  process.exit(1);
}
const declared = new Set(lines(`${dir}routes.txt`));
const covered = new Set(
  readdirSync(dir)
    .filter((name) => name.startsWith('covered-'))
    .flatMap((name) => lines(`${dir}${name}`)),
);
const violations = lines(`${dir}violations.jsonl`).map((line) => JSON.parse(line));
const unchecked = [...declared].filter((route) => !covered.has(route)).sort();

for (const violation of violations)
  console.error(`✗ ${violation.route} answered ${violation.status} against its schema: ${violation.problems.join('; ')}`);
for (const route of unchecked) console.error(`✗ ${route}: no test in the API suite got a successful answer to check against its schema`);
if (violations.length > 0 || unchecked.length > 0) {
  console.error(
    `✗ API contract: ${violations.length} answers broke their schema, ${unchecked.length} of ${declared.size} routes unchecked`,
  );
  process.exit(1);
}
console.log(`✓ API contract: all ${declared.size} /api routes answered a success that matched their declared schema`);
