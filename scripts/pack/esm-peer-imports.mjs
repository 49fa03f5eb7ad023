/**
 * Rewrites a package's emitted declarations so an ES-module consumer can read them: every import of a Nest package
 * (`@nestjs/*`) becomes type-only with `resolution-mode: import`, a deep path with its `.js`.
 *
 * Why: this package is CommonJS, so TypeScript reads its `.d.ts` files as CommonJS. Nest 12 ships ES modules only, and
 * under `module: node16` a CommonJS file may not import one (TS1479) — an app compiled with `skipLibCheck: false`
 * would fail inside these declarations. In a `.d.ts` every import is a type import already, and `resolution-mode`
 * (TypeScript ≥ 5.3, every `moduleResolution`) says how to resolve it; Nest 11, which is CommonJS, resolves the same
 * way. Idempotent; run by `prepack.mjs`, so `npm pack` and `npm publish` never ship the raw files.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ESM_PEER = /^@nestjs\//;
const MODE = `with { 'resolution-mode': 'import' }`;

/** `import { type A, B } from '@nestjs/x';` → `import type { A, B } from '@nestjs/x' with { … };` */
const IMPORT_DECLARATION =
  /^import\s+(type\s+)?(\{[^}]*\}|\*\s+as\s+[\w$]+)\s+from\s+(['"])([^'"]+)\3(\s+with\s*\{[^}]*\})?\s*;/gm;

/** `import("@nestjs/x")` in a type position (TypeScript adds the attribute itself only where it sees the need). */
const IMPORT_TYPE = /\bimport\((['"])([^'"]+)\1(?:\s*,\s*\{\s*with:\s*\{[^}]*\}\s*\})?\)/g;

/** Any other shape of import naming a Nest package (a default import, a re-export): refused, not silently left. */
const ANY_REFERENCE = /(?:from|import\()\s*(['"])(@nestjs\/[^'"]+)\1(?!\s*,\s*\{\s*with)/;

/**
 * An ES-module resolution adds no extension: a deep path (`@nestjs/core/injector/instance-wrapper`) needs its `.js`,
 * which both Nest 12's `exports` (`./*.js`) and Nest 11's plain files answer.
 */
const withExtension = (specifier) =>
  /^@nestjs\/[^/]+\/.+/.test(specifier) && !specifier.endsWith('.js')
    ? `${specifier}.js`
    : specifier;

export function rewriteDeclaration(text, file) {
  // rebuilt whole even when already rewritten: the same output again, so the rewrite is idempotent
  let out = text.replace(IMPORT_DECLARATION, (whole, _type, clause, quote, specifier) => {
    if (!ESM_PEER.test(specifier)) return whole;
    const names = clause.startsWith('{') ? clause.replace(/\btype\s+/g, '') : clause;
    return `import type ${names} from ${quote}${withExtension(specifier)}${quote} ${MODE};`;
  });
  out = out.replace(IMPORT_TYPE, (whole, quote, specifier) =>
    ESM_PEER.test(specifier)
      ? `import(${quote}${withExtension(specifier)}${quote}, { with: { "resolution-mode": "import" } })`
      : whole,
  );
  for (const line of out.split('\n')) {
    if (!ANY_REFERENCE.test(line) || line.includes("'resolution-mode'")) continue;
    throw new Error(
      `${file}: an import of a Nest package this script cannot rewrite: ${line.trim()}`,
    );
  }
  return out;
}

function* declarations(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* declarations(path);
    else if (name.endsWith('.d.ts')) yield path;
  }
}

/** Rewrites every `.d.ts` under `dir`; answers how many changed. */
export function rewriteDeclarations(dir) {
  let changed = 0;
  for (const file of declarations(dir)) {
    const text = readFileSync(file, 'utf8');
    const out = rewriteDeclaration(text, file);
    if (out !== text) {
      writeFileSync(file, out);
      changed += 1;
    }
  }
  return changed;
}
