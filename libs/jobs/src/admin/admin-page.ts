import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The files the asset build writes, with their content types. Nothing else is served from the assets directory. */
export const ADMIN_ASSETS: Readonly<Record<string, string>> = Object.freeze({
  'admin.js': 'text/javascript; charset=utf-8',
  'admin.css': 'text/css; charset=utf-8',
});

/** The page's Content-Security-Policy: its own scripts and styles only, never framed. */
export const ADMIN_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'none'";

const escapeAttr = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page's HTML: one root element, the bundle and its stylesheet, and where the API lives. */
export function adminHtml(path: string): string {
  const base = escapeAttr(path);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Jobs</title>
<link rel="stylesheet" href="${base}/assets/admin.css">
</head>
<body>
<div id="app" data-base="${base}"></div>
<script type="module" src="${base}/assets/admin.js"></script>
</body>
</html>
`;
}

/** One built asset's bytes and type, or null when `file` is not one of {@link ADMIN_ASSETS} or was never built. */
export async function readAdminAsset(
  dir: string,
  file: string,
): Promise<{ readonly body: Buffer; readonly type: string } | null> {
  const type = ADMIN_ASSETS[file];
  if (type === undefined || !Object.prototype.hasOwnProperty.call(ADMIN_ASSETS, file)) return null;
  try {
    return { body: await readFile(join(dir, file)), type };
  } catch {
    return null;
  }
}
