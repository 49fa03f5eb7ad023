/**
 * `npm run pack`: builds and packs `@ultimat3/jobs` and `@ultimat3/jobs-pg` into `dist-pack/` at the repository root,
 * the tarballs an app installs (`npm install ./dist-pack/ultimat3-jobs-0.1.0.tgz …`) or a registry publishes. Each
 * library's `prepack` builds it and rewrites its declarations (`esm-peer-imports.mjs`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PACK_DIR = join(ROOT, 'dist-pack');
export const PACKED_WORKSPACES = ['libs/jobs', 'libs/jobs-pg'];

/** Packs both libraries; answers the tarballs' absolute paths by package name. Throws when npm fails. */
export function packLibraries({ quiet = false } = {}) {
  rmSync(PACK_DIR, { recursive: true, force: true });
  mkdirSync(PACK_DIR, { recursive: true });
  const args = [
    'pack',
    ...PACKED_WORKSPACES.flatMap((w) => ['-w', w]),
    '--pack-destination',
    PACK_DIR,
  ];
  const result = spawnSync('npm', args, {
    cwd: ROOT,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    const output = quiet ? `\n${result.stdout}${result.stderr}` : '';
    throw new Error(`npm ${args.join(' ')} failed (exit ${result.status})${output}`);
  }
  const tarballs = {};
  for (const file of readdirSync(PACK_DIR)) {
    if (file.startsWith('ultimat3-jobs-pg-')) tarballs['@ultimat3/jobs-pg'] = join(PACK_DIR, file);
    else if (file.startsWith('ultimat3-jobs-')) tarballs['@ultimat3/jobs'] = join(PACK_DIR, file);
  }
  if (!tarballs['@ultimat3/jobs'] || !tarballs['@ultimat3/jobs-pg']) {
    throw new Error(
      `npm pack wrote ${readdirSync(PACK_DIR).join(', ') || 'nothing'} to ${PACK_DIR}`,
    );
  }
  return tarballs;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const tarballs = packLibraries();
    for (const [name, path] of Object.entries(tarballs)) console.log(`${name}: ${path}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
