// `npm test`: type-check, lint, unit + API suites, then the browser suite. The database matrix
// (PostgreSQL, MySQL, Redis) runs when TEST_POSTGRES_DSN, TEST_MYSQL_DSN and TEST_REDIS_URL are set;
// the browser suite when /usr/bin/chromium exists. Outside CI their absence is a one-line hint;
// with CI=true it is a failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { requireSupportedNode } from './node-version.mjs';

const root = new URL('..', import.meta.url).pathname;
requireSupportedNode();
const isCi = process.env.CI === 'true' || process.env.CI === '1';
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const resultsDir = `${root}node_modules/.cache/modelgate-test`;
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

let failed = false;
const totals = { passed: 0, failed: 0, skipped: 0 };
const suites = [];

function step(name, command, args, env = {}) {
  console.log(`\n▶ ${name}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`✗ ${name} failed (${seconds}s)`);
    failed = true;
    return false;
  }
  console.log(`✓ ${name} (${seconds}s)`);
  return true;
}

function firstLine(text) {
  return (
    String(text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

function vitest(name, projects) {
  const output = `${resultsDir}/${name}.json`;
  const args = [
    'vitest',
    'run',
    ...projects.flatMap((p) => ['--project', p]),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${output}`,
  ];
  const isGreen = step(`${name} tests`, 'npx', args);
  if (existsSync(output)) {
    const report = JSON.parse(readFileSync(output, 'utf8'));
    // A file that fails outside its tests (import error, throwing beforeAll) has no failed test;
    // count it as one failure so the summary never reads "0 failed" for a broken file.
    const brokenFiles = report.testResults.filter(
      (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
    );
    for (const file of brokenFiles) console.error(`✗ ${file.name.replace(root, '')}: ${file.message || 'failed outside its tests'}`);
    const counts = {
      passed: report.numPassedTests,
      failed: report.numFailedTests + brokenFiles.length,
      skipped: report.numPendingTests + report.numTodoTests,
    };
    // vitest failed with nothing failed in its report (e.g. "No test files found"): still a failure.
    const isUnexplained = !isGreen && counts.failed === 0;
    if (isUnexplained) counts.failed = 1;
    suites.push(
      `${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${isUnexplained ? ' (vitest exited non-zero, see above)' : ''}`,
    );
    // Name every failure in the summary, so a log that keeps only its tail still says what broke.
    for (const file of report.testResults) {
      const path = file.name.replace(root, '');
      if (brokenFiles.includes(file)) suites.push(`  ✗ ${path}: ${firstLine(file.message) || 'failed outside its tests'}`);
      for (const test of file.assertionResults.filter((result) => result.status === 'failed')) {
        suites.push(`  ✗ ${path} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
      }
    }
    for (const key of Object.keys(totals)) totals[key] += counts[key];
  } else {
    // vitest crashed before writing its report: count the run as a failure in the summary too.
    failed = true;
    totals.failed += 1;
    suites.push(`${name}: no report written (vitest did not finish)`);
  }
}

const matrix = ['TEST_POSTGRES_DSN', 'TEST_MYSQL_DSN', 'TEST_REDIS_URL'];
const missingMatrix = matrix.filter((name) => !process.env[name]);
if (missingMatrix.length > 0) {
  const hint = `database matrix: ${missingMatrix.join(', ')} not set, so those backends are skipped (SQLite and in-memory cache still run). .ci/run sets them.`;
  if (isCi) {
    console.error(`✗ ${hint}`);
    failed = true;
  } else {
    console.log(`ℹ ${hint}`);
  }
}

step('type-check', 'npm', ['run', '--silent', 'typecheck']);
step('lint', 'npm', ['run', '--silent', 'lint']);
vitest('unit+api', ['server', 'web']);
// Every /api route answered a checked success in the suite above, and none broke its schema.
if (!step('API contract', 'node', ['scripts/check-api-contract.mjs'])) suites.push('API contract: failed (routes listed above)');

if (existsSync(chromium)) {
  if (step('build for browser suite', 'npm', ['run', '--silent', 'build'])) vitest('browser', ['e2e']);
} else if (isCi) {
  console.error(`✗ browser suite: ${chromium} not found (apt-get install -y chromium)`);
  failed = true;
} else {
  console.log(`ℹ browser suite skipped: ${chromium} not found (apt-get install -y chromium to run it)`);
}

console.log('\n── summary');
for (const line of suites) console.log(`  ${line}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failed || totals.failed > 0 ? 1 : 0);
