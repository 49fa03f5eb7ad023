/**
 * Each library's `prepack` (after its `tsc -b`), run in the library's directory: makes `dist/` exactly what ships.
 *
 * 1. Removes outputs whose source is gone: `tsc` never deletes the `.js` / `.d.ts` of a file removed from `src/`,
 *    and `files: ["dist"]` would publish them.
 * 2. Rewrites the declarations' Nest imports (`esm-peer-imports.mjs`).
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { rewriteDeclarations } from './esm-peer-imports.mjs';

const OUTPUT = /(\.d\.ts|\.js)(\.map)?$/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Deletes `dist` outputs with no `src` file behind them; answers their paths. */
export function pruneStaleOutputs(dist = 'dist', src = 'src') {
  const stale = [];
  for (const file of files(dist)) {
    if (!OUTPUT.test(file)) continue;
    const source = join(src, relative(dist, file).replace(OUTPUT, '.ts'));
    if (!existsSync(source)) {
      rmSync(file);
      stale.push(file);
    }
  }
  return stale;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!existsSync('dist/index.d.ts')) {
    console.error(`${process.cwd()}/dist/index.d.ts is missing: the build did not run.`);
    process.exit(1);
  }
  const stale = pruneStaleOutputs();
  const rewritten = rewriteDeclarations('dist');
  console.log(
    `prepack: ${stale.length} stale output(s) removed, ${rewritten} declaration file(s) rewritten`,
  );
}
