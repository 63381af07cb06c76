/**
 * Reads a Dockerfile and a .dockerignore the way `docker build` does, for the subset of the format
 * that the repository's Dockerfile uses. Anything outside that subset is an error naming the line,
 * so the test that interprets the file never silently skips a step the image would run.
 */

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  line: number;
}

export interface Stage {
  image: string;
  name: string | null;
  instructions: Instruction[];
}

/** Instructions, with comments and parser directives dropped and `\` continuations joined. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | null = null;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const continues = line.endsWith('\\');
    const part = continues ? line.slice(0, -1).trim() : line;
    pending = pending ? { text: `${pending.text} ${part}`, line: pending.line } : { text: part, line: index + 1 };
    if (continues) return;
    const [keyword = '', ...rest] = pending.text.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: pending.line });
    pending = null;
  });
  if (pending) throw new Error('Dockerfile ends inside a continued line');
  return instructions;
}

/** The build stages: each FROM starts one; `FROM image AS name` names it. */
export function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const match = /^([^\s-][^\s]*)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!match) throw new Error(`line ${instruction.line}: FROM ${instruction.args} is not "FROM image [AS name]"`);
      stages.push({ image: match[1]!, name: match[2] ?? null, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`line ${instruction.line}: ${instruction.keyword} before the first FROM`);
    stage.instructions.push(instruction);
  }
  return stages;
}

/** `ENV A=1 B="two words"` as a record; `$` substitution is not interpreted, so it is refused. */
export function parseEnv(instruction: Instruction): Record<string, string> {
  const env: Record<string, string> = {};
  const pattern = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)\s*/y;
  let offset = 0;
  while (offset < instruction.args.length) {
    pattern.lastIndex = offset;
    const match = pattern.exec(instruction.args);
    if (!match) throw new Error(`line ${instruction.line}: ENV must be KEY=value pairs, got ${instruction.args}`);
    const value = match[2]!.startsWith('"') ? (JSON.parse(match[2]!) as string) : match[2]!;
    if (value.includes('$'))
      throw new Error(`line ${instruction.line}: ENV ${match[1]} uses $ substitution, which the test does not interpret`);
    env[match[1]!] = value;
    offset = pattern.lastIndex;
  }
  return env;
}

/** An exec-form command (`["node", "main.js"]`); the shell form would need the image's shell. */
export function parseExecForm(instruction: Instruction, text = instruction.args): string[] {
  let argv: unknown;
  try {
    argv = JSON.parse(text);
  } catch {
    argv = null;
  }
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((item) => typeof item === 'string')) {
    throw new Error(`line ${instruction.line}: ${instruction.keyword} must use the exec form ["program", "arg", ...]`);
  }
  return argv as string[];
}

export interface Healthcheck {
  intervalMs: number;
  timeoutMs: number;
  startPeriodMs: number;
  retries: number;
  command: string[];
}

function durationMs(value: string, line: number): number {
  const match = /^(\d+)(ms|s|m)$/.exec(value);
  if (!match) throw new Error(`line ${line}: ${value} is not a duration like 30s`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'];
}

/** `HEALTHCHECK [--interval= --timeout= --start-period= --retries=] CMD [...]`, with Docker's defaults. */
export function parseHealthcheck(instruction: Instruction): Healthcheck {
  const match = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+(.+)$/.exec(instruction.args);
  if (!match) throw new Error(`line ${instruction.line}: HEALTHCHECK must be "[--option=value ...] CMD [...]"`);
  const options = Object.fromEntries(
    match[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((option) => option.slice(2).split('=') as [string, string]),
  );
  const known = new Set(['interval', 'timeout', 'start-period', 'retries']);
  for (const name of Object.keys(options))
    if (!known.has(name)) throw new Error(`line ${instruction.line}: HEALTHCHECK --${name} is not interpreted`);
  return {
    intervalMs: durationMs(options.interval ?? '30s', instruction.line),
    timeoutMs: durationMs(options.timeout ?? '30s', instruction.line),
    startPeriodMs: durationMs(options['start-period'] ?? '0s', instruction.line),
    retries: Number(options.retries ?? 3),
    command: parseExecForm(instruction, match[2]),
  };
}

/** One .dockerignore pattern as a regular expression over slash-separated context paths. */
function patternToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      const isDirectoryPrefix = pattern[i + 2] === '/';
      source += isDirectoryPrefix ? '(?:.*/)?' : '.*';
      i += isDirectoryPrefix ? 2 : 1;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[' || char === '\\') {
      throw new Error(`.dockerignore pattern ${pattern}: character classes and escapes are not interpreted`);
    } else {
      source += char.replace(/[.+^${}()|\]]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/**
 * Whether a context path (relative, slash-separated) is left out of the build context: the last
 * matching rule decides, `!` rules bring paths back, and a rule matching a directory matches
 * everything under it.
 */
export function dockerignoreMatcher(text: string): (relativePath: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const isException = line.startsWith('!');
      const pattern = (isException ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      return { isException, regexp: patternToRegExp(pattern) };
    });
  return (relativePath) => {
    const parts = relativePath.split('/');
    const prefixes = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
    let isIgnored = false;
    for (const rule of rules) {
      if (prefixes.some((prefix) => rule.regexp.test(prefix))) isIgnored = !rule.isException;
    }
    return isIgnored;
  };
}
