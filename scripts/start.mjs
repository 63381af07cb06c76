// `npm start`: builds whatever is missing or older than its sources (server bundle, console), then
// serves both on PORT (3000). So `git pull && npm start` never runs a stale build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { requireSupportedNode } from './node-version.mjs';

const root = new URL('..', import.meta.url).pathname;
requireSupportedNode();
const run = (args) => {
  const result = spawnSync('npm', args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

/** Newest modification time of the files under the given paths (files or directories). */
function newestSource(paths) {
  let newest = 0;
  for (const relative of paths) {
    const full = path.join(root, relative);
    if (!existsSync(full)) continue;
    const stat = statSync(full);
    if (stat.isFile()) {
      newest = Math.max(newest, stat.mtimeMs);
      continue;
    }
    for (const entry of readdirSync(full, { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

const isStale = (output, sources) =>
  !existsSync(path.join(root, output)) || statSync(path.join(root, output)).mtimeMs < newestSource(sources);

if (isStale('server/dist/main.js', ['server/src', 'packages/shared/src', 'server/package.json'])) run(['run', 'build', '-w', 'server']);
if (
  isStale('web/dist/index.html', [
    'web/src',
    'web/public',
    'web/index.html',
    'web/vite.config.ts',
    'web/vite-plugin-precompress.ts',
    'packages/shared/src',
  ])
)
  run(['run', 'build', '-w', 'web']);

await import(`${root}server/dist/main.js`);
