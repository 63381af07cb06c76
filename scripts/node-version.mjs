// The Node.js versions package.json's `engines` allows, checked before `npm start` and `npm test` do
// anything: an older Node would load native addons built for another ABI and crash without a word.
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;

/** Exits with a message naming the way out when this Node is older than `engines.node` (`>=X.Y`). */
export function requireSupportedNode() {
  const range = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).engines?.node ?? '';
  const minimum = /^>=\s*(\d+)\.(\d+)/.exec(range);
  if (!minimum) return;
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor] = [Number(minimum[1]), Number(minimum[2])];
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return;
  console.error(`ModelGate needs Node.js ${needMajor}.${needMinor} or newer; this is ${process.versions.node}.`);
  console.error('Install Node.js 24 LTS, or take it from the npm registry as CI does:');
  console.error('  node_home="$(bash .ci/install-node)"; export PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home"');
  console.error('then run npm ci (native modules are built for the Node that installs them).');
  process.exit(1);
}
