// The commit-message convention (CONTRIBUTING.md), checked in CI (.ci/run) on every commit from the
// one that introduced this script onwards: older history is left as it was written. Merges are
// skipped (their subject is Git's). A shallow clone, or one without that commit, cannot tell which
// commits are new: it says so and passes.
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

export const maxSubjectLength = 72;

/** Imperative verbs that end like a past tense or a gerund. */
const imperativeExceptions = new Set([
  'bed',
  'bleed',
  'breed',
  'embed',
  'exceed',
  'feed',
  'heed',
  'need',
  'proceed',
  'seed',
  'shed',
  'shred',
  'speed',
  'succeed',
  'weed',
  'bring',
  'cling',
  'fling',
  'ping',
  'ring',
  'sing',
  'sling',
  'spring',
  'sting',
  'string',
  'swing',
  'wring',
]);

/** What is wrong with one commit message (empty when it follows the convention). */
export function commitMessageProblems(message) {
  const lines = message.replace(/\r\n/g, '\n').replace(/\s+$/, '').split('\n');
  const subject = lines[0] ?? '';
  const problems = [];
  if (subject.trim() === '') return ['the subject line is empty'];
  if (subject.length > maxSubjectLength) problems.push(`the subject is ${subject.length} characters long (at most ${maxSubjectLength})`);
  if (subject.endsWith('.')) problems.push('the subject ends with a period');
  const firstWord = subject.split(/\s+/)[0];
  const word = firstWord.toLowerCase().replace(/[^a-z-]/g, '');
  if (!/^[A-Z]/.test(firstWord)) problems.push(`the subject starts with "${firstWord}", not a capitalised verb`);
  if (word === 'wip') problems.push('the subject is a work in progress (WIP)');
  else if (/(ed|ing)$/.test(word) && !imperativeExceptions.has(word))
    problems.push(`the subject starts with "${firstWord}": use the imperative ("Add", "Fix"), not a past tense or gerund`);
  if (lines.length < 2) problems.push('there is no body saying why (a blank line, then the body)');
  else {
    if (lines[1].trim() !== '') problems.push('the second line is not blank');
    if (lines.slice(2).every((line) => line.trim() === '')) problems.push('the body is empty: say why, and how it was checked');
  }
  return problems;
}

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Checks the commits from this script's first commit to HEAD in `cwd`; returns the exit code. */
export function checkRepository(cwd, log = console.log) {
  if (git(cwd, 'rev-parse', '--is-shallow-repository') === 'true') {
    log('check-commits: shallow clone, the history is incomplete: not checked');
    return 0;
  }
  const introductions = git(cwd, 'log', '--diff-filter=A', '--format=%H', 'HEAD', '--', 'scripts/check-commits.mjs')
    .split('\n')
    .filter(Boolean);
  const base = introductions.at(-1);
  if (!base) {
    log('check-commits: no commit introduces scripts/check-commits.mjs in this history: nothing to check');
    return 0;
  }
  // Descendants of the base only: a branch forked before the check existed keeps its commits.
  const commits = [
    base,
    ...git(cwd, 'rev-list', '--no-merges', '--ancestry-path', '--reverse', `${base}..HEAD`).split('\n').filter(Boolean),
  ];
  let failures = 0;
  for (const sha of commits) {
    const problems = commitMessageProblems(git(cwd, 'log', '-1', '--format=%B', sha));
    if (problems.length === 0) continue;
    failures += 1;
    log(`${sha.slice(0, 10)} ${git(cwd, 'log', '-1', '--format=%s', sha)}`);
    for (const problem of problems) log(`  - ${problem}`);
  }
  log(`check-commits: ${commits.length} commit(s) since ${base.slice(0, 10)}, ${failures} not following the convention (CONTRIBUTING.md)`);
  return failures === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = checkRepository(process.cwd());
}
