#!/usr/bin/env node
// Bundles the admin page (libs/jobs/src/admin/web: preact + htm + uPlot) into admin.js and admin.css with esbuild.
// `npm run build` and libs/jobs's prepack write them to libs/jobs/dist/admin/assets, where JobsAdminModule serves
// them from by default, so they ship inside the package. Specs call buildAdminAssets(tempDir) and pass assetsDir.
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle written to `outDir`: admin.js (ES module, minified) and admin.css. */
export async function buildAdminAssets(outDir = join(root, 'libs/jobs/dist/admin/assets')) {
  const { build } = await import('esbuild');
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { admin: join(root, 'libs/jobs/src/admin/web/admin.mts') },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: root,
  });
  return outDir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildAdminAssets(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`admin assets written to ${out}`);
}
