// `npm start`: builds whatever is missing (server bundle, console), then serves both on PORT (3000).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const run = (args) => {
  const result = spawnSync('npm', args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (!existsSync(`${root}server/dist/main.js`)) run(['run', 'build', '-w', 'server']);
if (!existsSync(`${root}web/dist/index.html`)) run(['run', 'build', '-w', 'web']);

await import(`${root}server/dist/main.js`);
