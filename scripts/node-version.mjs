// The Node.js versions package.json's `engines` allows, checked before `npm start` and `npm test` do
// anything. On an older Node (the machine's own Node 20, say) the script runs itself again on Node 24
// LTS from the npm registry (.ci/install-node, the Node CI runs on), saying so, rather than loading
// native addons that need a newer Node-API and crashing without a word.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = new URL('..', import.meta.url).pathname;

function isSupported(range) {
  const minimum = /^>=\s*(\d+)\.(\d+)/.exec(range);
  if (!minimum) return true;
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor] = [Number(minimum[1]), Number(minimum[2])];
  return major > needMajor || (major === needMajor && minor >= needMinor);
}

/** Returns on a supported Node; otherwise runs this script on Node 24 LTS and exits with its status. */
export function requireSupportedNode() {
  const range = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).engines?.node ?? '';
  if (isSupported(range)) return;
  console.error(`ModelGate needs Node.js ${range.replace('>=', '')} or newer; this is ${process.versions.node}.`);
  console.error('Running on Node.js 24 LTS from the npm registry instead (.ci/install-node). Install Node 24 to skip this.');
  const installed = spawnSync('bash', [path.join(root, '.ci/install-node')], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const home = installed.stdout?.trim();
  if (installed.status !== 0 || !home) {
    console.error('Node.js 24 could not be installed: install Node.js 22.14+ or 24 and run npm ci again.');
    process.exit(1);
  }
  const env = { ...process.env, PATH: `${home}/bin:${process.env.PATH ?? ''}`, npm_config_nodedir: home };
  const result = spawnSync(path.join(home, 'bin/node'), process.argv.slice(1), { cwd: process.cwd(), stdio: 'inherit', env });
  process.exit(result.status ?? 1);
}
