import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, without type declarations
import { checkRepository, commitMessageProblems } from '../../../scripts/check-commits.mjs';

/** The commit-message convention (scripts/check-commits.mjs, run by .ci/run). */
const root = path.resolve(import.meta.dirname, '../../..');
const problems = (message: string): string[] => commitMessageProblems(message);
const body = '\n\nWhy it changes, and which tests checked it.\n';

describe('one commit message', () => {
  it('accepts an imperative subject, a blank line and a body', () => {
    expect(problems(`Record admin sign-ins in the audit trail${body}`)).toEqual([]);
    expect(problems(`Embed the console in the server image${body}`)).toEqual([]);
    expect(problems(`Bring the pricing page back${body}`)).toEqual([]);
  });

  it('holds the subject to 72 characters, without a trailing period', () => {
    expect(problems(`Add ${'x'.repeat(68)}${body}`)).toEqual([]);
    expect(problems(`Add ${'x'.repeat(69)}${body}`)).toEqual(['the subject is 73 characters long (at most 72)']);
    expect(problems(`Add the audit trail.${body}`)).toEqual(['the subject ends with a period']);
  });

  it('wants a capitalised verb in the imperative', () => {
    expect(problems(`add the audit trail${body}`)).toEqual(['the subject starts with "add", not a capitalised verb']);
    for (const subject of ['Added the audit trail', 'Fixed a leak', 'Updated docs', 'Adding tests']) {
      expect(problems(`${subject}${body}`), subject).toEqual([expect.stringContaining('use the imperative')]);
    }
    expect(problems(`WIP audit trail${body}`)).toEqual(['the subject is a work in progress (WIP)']);
  });

  it('wants a blank second line and a body', () => {
    expect(problems('Add the audit trail')).toEqual(['there is no body saying why (a blank line, then the body)']);
    expect(problems('Add the audit trail\nwhy it changes\n')).toEqual([
      'the second line is not blank',
      'the body is empty: say why, and how it was checked',
    ]);
    expect(problems('Add the audit trail\n\n   \n')).toEqual(['there is no body saying why (a blank line, then the body)']);
    expect(problems('')).toEqual(['the subject line is empty']);
  });
});

describe('a repository history', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'T',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'T',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8' });
  const commit = (cwd: string, file: string, message: string) => {
    fs.mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    fs.writeFileSync(path.join(cwd, file), message);
    git(cwd, 'add', '.');
    git(cwd, 'commit', '-q', '--allow-empty-message', '--cleanup=verbatim', '-m', message);
  };
  function repository(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-commits-'));
    dirs.push(dir);
    git(dir, 'init', '-q', '-b', 'main');
    commit(dir, 'a.txt', 'fixed stuff.');
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.copyFileSync(path.join(root, 'scripts/check-commits.mjs'), path.join(dir, 'scripts/check-commits.mjs'));
    commit(dir, 'b.txt', `Check commit messages in CI${body}`);
    return dir;
  }
  const run = (dir: string) => {
    const lines: string[] = [];
    return { code: checkRepository(dir, (line: string) => lines.push(line)), out: lines.join('\n') };
  };

  it('checks the commits from the script’s own onwards, not older ones', () => {
    const dir = repository();
    commit(dir, 'c.txt', `Add the audit trail${body}`);
    expect(run(dir)).toEqual({ code: 0, out: expect.stringContaining('2 commit(s) since') });
  });

  it('fails on a later commit that breaks the convention, naming it', () => {
    const dir = repository();
    commit(dir, 'c.txt', 'Updated the docs.');
    const { code, out } = run(dir);
    expect(code).toBe(1);
    expect(out).toContain('Updated the docs.');
    expect(out).toContain('the subject ends with a period');
    expect(out).toContain('1 not following the convention');
  });

  it('skips merge commits', () => {
    const dir = repository();
    git(dir, 'checkout', '-q', '-b', 'side');
    commit(dir, 'side.txt', `Add a side file${body}`);
    git(dir, 'checkout', '-q', 'main');
    commit(dir, 'main.txt', `Add a main file${body}`);
    git(dir, 'merge', '-q', '--no-ff', '--no-edit', 'side');
    expect(run(dir).code).toBe(0);
  });

  it('passes a shallow clone, saying it cannot tell', () => {
    const dir = repository();
    commit(dir, 'c.txt', 'wip');
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'check-commits-clone-'));
    dirs.push(clone);
    git(clone, 'clone', '-q', '--depth', '1', `file://${dir}`, '.');
    expect(run(clone)).toEqual({ code: 0, out: expect.stringContaining('shallow clone') });
  });

  it('passes, saying so, where no commit introduces the script', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-commits-'));
    dirs.push(dir);
    git(dir, 'init', '-q', '-b', 'main');
    commit(dir, 'a.txt', 'fixed stuff.');
    expect(run(dir)).toEqual({ code: 0, out: expect.stringContaining('nothing to check') });
  });
});
