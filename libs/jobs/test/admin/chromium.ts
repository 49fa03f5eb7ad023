import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Debian's Chromium (`apt-get install chromium`, what `.ci/run` installs), or `CHROMIUM_PATH`. */
export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `No Chromium at ${path}: install Debian's chromium package (.ci/run does) or set CHROMIUM_PATH.`,
    );
  }
  return path;
}

/** Builds the admin page's assets into `outDir` with the same script `npm run build` runs. */
export function buildAdminAssets(outDir: string): string {
  const root = resolve(__dirname, '../../../..');
  execFileSync(process.execPath, [join(root, 'scripts/build-admin-assets.mjs'), outDir], {
    stdio: 'pipe',
  });
  return outDir;
}
