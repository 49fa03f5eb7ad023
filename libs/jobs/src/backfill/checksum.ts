import { createHash } from 'node:crypto';

/** What a backfill's definition checksum covers: what it selects and what it does, never how fast it goes. */
export interface ChecksumParts {
  readonly name: string;
  readonly key: readonly string[] | undefined;
  readonly source: unknown;
  readonly handle: unknown;
  readonly count: unknown;
  readonly requires: string | undefined;
  readonly environments: readonly string[] | undefined;
}

/**
 * The definition checksum a pass is recorded under: SHA-256 over the name, the key, the function source text of
 * `source`, `handle` and `count`, and the declared `requires` / `environments`. `batch` and `rate` are left out:
 * pacing is tuning, and changing it does not make a completed sweep a different sweep. Function text moves when a
 * bundler rewrites it without the behaviour changing, so a moved checksum WARNS and never refuses.
 */
export function backfillChecksum(parts: ChecksumParts): string {
  const text = (fn: unknown): string | null => (typeof fn === 'function' ? String(fn) : null);
  const canonical = JSON.stringify([
    parts.name,
    parts.key ?? null,
    text(parts.source),
    text(parts.handle),
    text(parts.count),
    parts.requires ?? null,
    parts.environments ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
