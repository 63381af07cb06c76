import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Text formats worth compressing; images and fonts are compressed already. */
const compressible = /\.(?:js|mjs|css|html|svg|json|txt|xml|wasm)$/;
/** Below this a compressed copy saves less than its own headers cost. */
const minimumBytes = 1024;

/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside every compressible file of the build, once,
 * at maximum compression, so the server sends them (@fastify/static `preCompressed`) without
 * compressing anything per request. A copy that would not be smaller is not written.
 */
export async function precompressDirectory(dir: string): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((entry) => entry.isFile() && compressible.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
  await Promise.all(
    files.map(async (file) => {
      const original = await fs.readFile(file);
      if (original.length < minimumBytes) return;
      const [br, gz] = await Promise.all([
        brotli(original, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: original.length,
          },
        }),
        gzip(original, { level: zlib.constants.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < original.length) await fs.writeFile(`${file}.br`, br);
      if (gz.length < original.length) await fs.writeFile(`${file}.gz`, gz);
    }),
  );
}

/** Vite build plugin: precompresses the output directory after everything is written. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'modelgate-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      await precompressDirectory(outDir);
    },
  };
}
