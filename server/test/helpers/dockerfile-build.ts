import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  dockerignoreMatcher,
  parseDockerfile,
  parseEnv,
  parseExecForm,
  parseHealthcheck,
  stagesOf,
  type Healthcheck,
  type Instruction,
} from './dockerfile-parse.js';

/**
 * Runs a Dockerfile's build without a container daemon: each stage gets a directory standing for
 * its filesystem (`/app` of a stage is `<stage dir>/app`), COPY copies from the build context (less
 * .dockerignore) or from an earlier stage, RUN runs its shell command in the stage's WORKDIR with
 * the stage's ENV, and the final stage's CMD and HEALTHCHECK come back ready to run. The base
 * image's programs are this machine's (`node`, `npm`, `sh`).
 *
 * What a directory cannot stand for is refused rather than guessed: RUN commands must not name
 * absolute paths (they would reach this machine's root, not the stage's), and COPY's `--chown` is
 * recorded (for the test to check), not applied, since the image's users do not exist here.
 */

export interface FinalStage {
  image: string;
  /** The directory standing for the image's `/`. */
  root: string;
  workdir: string;
  /** ENV as written in the Dockerfile (container paths). */
  env: Record<string, string>;
  user: string | null;
  volumes: string[];
  exposedPorts: number[];
  healthcheck: Healthcheck | null;
  cmd: string[];
  /** Container paths created by `COPY --chown=<owner>`, with that owner. */
  chowned: Record<string, string>;
  /** Container paths of everything the stage copied in, in order. */
  copied: string[];
}

interface StageState extends FinalStage {
  name: string | null;
}

export interface BuildOptions {
  /** Environment the build's RUN steps start from (PATH, HOME, npm settings), before the stage's ENV. */
  baseEnv: Record<string, string>;
  /** Told each step as it starts, and its duration when done. */
  log?: (message: string) => void;
}

/** The directory standing for a container path of a stage. */
export function hostPath(root: string, containerPath: string): string {
  if (!containerPath.startsWith('/')) throw new Error(`${containerPath} is not an absolute container path`);
  return path.join(root, containerPath);
}

/** ENV values that are container paths point into the stage's directory; others pass as they are. */
export function hostEnv(root: string, env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value.startsWith('/') ? hostPath(root, value) : value]));
}

/** Runs a command; rejects with its last output lines when it exits non-zero. */
export function runCommand(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} exited with ${code ?? signal} in ${options.cwd}:\n${output.split('\n').slice(-40).join('\n')}`,
          ),
        );
    });
  });
}

function copyFlags(instruction: Instruction): { from: string | null; chown: string | null; paths: string[] } {
  const words = instruction.args.split(/\s+/);
  let from: string | null = null;
  let chown: string | null = null;
  while (words[0]?.startsWith('--')) {
    const [flag, value = ''] = words.shift()!.slice(2).split('=');
    if (flag === 'from') from = value;
    else if (flag === 'chown') chown = value;
    else throw new Error(`line ${instruction.line}: COPY --${flag} is not interpreted`);
  }
  if (words.length < 2 || words.some((word) => /[*?[]/.test(word) || word.startsWith('['))) {
    throw new Error(`line ${instruction.line}: COPY must be "COPY [--from=stage] [--chown=owner] source... destination" without wildcards`);
  }
  return { from, chown, paths: words };
}

async function copy(
  stage: StageState,
  instruction: Instruction,
  context: string,
  ignored: (relative: string) => boolean,
  stages: StageState[],
): Promise<void> {
  const { from, chown, paths } = copyFlags(instruction);
  const sources = paths.slice(0, -1);
  const rawDestination = paths.at(-1)!;
  const destination = path.posix.resolve(stage.workdir, rawDestination);
  const isIntoDirectory = rawDestination.endsWith('/') || rawDestination === '.' || sources.length > 1;
  const source = from === null ? null : stages.find((candidate) => candidate.name === from);
  if (from !== null && !source) throw new Error(`line ${instruction.line}: COPY --from=${from} names no earlier stage`);
  for (const sourcePath of sources) {
    let origin: string;
    if (source) {
      origin = hostPath(source.root, path.posix.resolve(source.workdir, sourcePath));
    } else {
      const relative = path.posix
        .normalize(sourcePath)
        .replace(/^\.\/?/, '')
        .replace(/\/$/, '');
      if (relative.startsWith('..') || path.posix.isAbsolute(relative))
        throw new Error(`line ${instruction.line}: ${sourcePath} is outside the build context`);
      if (relative !== '' && ignored(relative)) throw new Error(`line ${instruction.line}: ${sourcePath} is excluded by .dockerignore`);
      origin = path.join(context, relative);
    }
    if (!fs.existsSync(origin)) throw new Error(`line ${instruction.line}: COPY source ${sourcePath} does not exist`);
    const isDirectory = fs.statSync(origin).isDirectory();
    // A directory's contents are copied (not the directory itself), as `docker build` does.
    const target = isDirectory || !isIntoDirectory ? destination : path.posix.join(destination, path.posix.basename(sourcePath));
    const targetOnHost = hostPath(stage.root, target);
    fs.mkdirSync(isDirectory ? targetOnHost : path.dirname(targetOnHost), { recursive: true });
    if (source) {
      // A stage's tree (the pruned node_modules: tens of thousands of files) as it is, symlinks included.
      await runCommand('cp', ['-a', isDirectory ? `${origin}/.` : origin, targetOnHost], {
        cwd: stage.root,
        env: { PATH: process.env.PATH ?? '' },
      });
    } else {
      const keep = (file: string) => file === origin || !ignored(path.relative(context, file).split(path.sep).join('/'));
      fs.cpSync(origin, targetOnHost, { recursive: true, verbatimSymlinks: true, filter: keep });
    }
    if (chown) stage.chowned[target] = chown;
    stage.copied.push(target);
  }
}

async function run(stage: StageState, instruction: Instruction, options: BuildOptions): Promise<void> {
  if (instruction.args.startsWith('['))
    throw new Error(`line ${instruction.line}: RUN in exec form is not interpreted; use the shell form`);
  if (/(^|[\s=:'"(])\//.test(instruction.args)) {
    throw new Error(
      `line ${instruction.line}: RUN ${instruction.args} names an absolute path; keep RUN to paths relative to WORKDIR so it runs here as in the image`,
    );
  }
  const cwd = hostPath(stage.root, stage.workdir);
  fs.mkdirSync(cwd, { recursive: true });
  await runCommand('sh', ['-c', instruction.args], { cwd, env: { ...options.baseEnv, ...hostEnv(stage.root, stage.env) } });
}

/** Builds every stage of `Dockerfile` in `context` under `workDir`; returns the final stage. */
export async function buildDockerfile(context: string, workDir: string, options: BuildOptions): Promise<FinalStage> {
  const instructions = parseDockerfile(fs.readFileSync(path.join(context, 'Dockerfile'), 'utf8'));
  const ignoreFile = path.join(context, '.dockerignore');
  const ignored = dockerignoreMatcher(fs.existsSync(ignoreFile) ? fs.readFileSync(ignoreFile, 'utf8') : '');
  const built: StageState[] = [];
  for (const [index, { image, name, instructions: steps }] of stagesOf(instructions).entries()) {
    const stage: StageState = {
      name,
      image,
      root: path.join(workDir, `stage-${index}`),
      workdir: '/',
      env: {},
      user: null,
      volumes: [],
      exposedPorts: [],
      healthcheck: null,
      cmd: [],
      chowned: {},
      copied: [],
    };
    fs.mkdirSync(stage.root, { recursive: true });
    for (const instruction of steps) {
      const started = performance.now();
      options.log?.(`[stage ${name ?? index}] ${instruction.keyword} ${instruction.args}`);
      switch (instruction.keyword) {
        case 'WORKDIR':
          stage.workdir = path.posix.resolve(stage.workdir, instruction.args);
          fs.mkdirSync(hostPath(stage.root, stage.workdir), { recursive: true });
          break;
        case 'ENV':
          Object.assign(stage.env, parseEnv(instruction));
          break;
        case 'COPY':
          await copy(stage, instruction, context, ignored, built);
          break;
        case 'RUN':
          await run(stage, instruction, options);
          break;
        case 'USER':
          stage.user = instruction.args;
          break;
        case 'VOLUME':
          stage.volumes.push(...(instruction.args.startsWith('[') ? parseExecForm(instruction) : instruction.args.split(/\s+/)));
          break;
        case 'EXPOSE':
          stage.exposedPorts.push(...instruction.args.split(/\s+/).map((port) => Number(port.replace(/\/tcp$/, ''))));
          break;
        case 'HEALTHCHECK':
          stage.healthcheck = parseHealthcheck(instruction);
          break;
        case 'CMD':
          stage.cmd = parseExecForm(instruction);
          break;
        default:
          throw new Error(
            `line ${instruction.line}: ${instruction.keyword} is not interpreted by the test; keep the Dockerfile to FROM, WORKDIR, ENV, COPY, RUN, USER, VOLUME, EXPOSE, HEALTHCHECK and CMD`,
          );
      }
      const seconds = (performance.now() - started) / 1000;
      if (seconds >= 1) options.log?.(`  done in ${seconds.toFixed(1)} s`);
    }
    built.push(stage);
  }
  const final = built.at(-1);
  if (!final) throw new Error('the Dockerfile has no FROM');
  const { name: _name, ...rest } = final;
  return rest;
}
