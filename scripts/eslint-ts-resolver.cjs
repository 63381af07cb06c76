// The import resolver eslint-plugin-boundaries uses (eslint.config.js): the server's relative
// specifiers name the compiled `.js` file; the source is the `.ts` beside it. The console's
// specifiers carry no extension (`./OptionsPanel` is OptionsPanel.tsx). Packages are not
// resolved (the boundary rules only concern the project's own files).
const fs = require('node:fs');
const path = require('node:path');

exports.interfaceVersion = 2;

exports.resolve = (source, file) => {
  if (!source.startsWith('.')) return { found: false };
  const base = path.resolve(path.dirname(file), source);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ];
  for (const candidate of candidates) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return { found: true, path: candidate };
  }
  return { found: false };
};
