/**
 * Removes what an interrupted run left in the temp directory. The throwaway servers (`throwaway-postgres.mjs`,
 * `throwaway-redis.mjs`) and the test run's connect jail name their directories `<prefix>-<pid>-<suffix>`, `<pid>`
 * the process that made it, and remove them when they stop; a run cut short before that (Ctrl-C during `npm test`,
 * a killed runner) leaves them behind: a PostgreSQL data directory is 40–70 MB, and a day of interrupted runs left
 * eleven of them here (336 MB). Each start sweeps its own prefix first.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether process `pid` exists (one owned by another user answers EPERM: it exists). */
export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The postmaster's pid a PostgreSQL data directory names (its `postmaster.pid` first line), if any. */
function postmasterOf(dir) {
  const file = join(dir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n', 1)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Removes every `<prefix>-<pid>-<suffix>` entry of `root` (the temp directory) whose `<pid>` is no live process —
 * never one this process made, one whose maker still runs (another run at the same time), or a data directory whose
 * server still runs (an orphaned postmaster keeps its files until it is stopped). Answers the names removed; an
 * entry that cannot be removed (another user's) is left.
 */
export function sweepStaleTempDirs(prefix, { root = tmpdir() } = {}) {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${escaped}-(\\d+)-[A-Za-z0-9]+$`);
  const removed = [];
  for (const entry of readdirSync(root)) {
    const pid = Number(pattern.exec(entry)?.[1] ?? NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    const dir = join(root, entry);
    try {
      const postmaster = postmasterOf(dir);
      if (postmaster !== undefined && processAlive(postmaster)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(entry);
    } catch {
      // not ours to remove (another user's directory), or gone already
    }
  }
  return removed;
}
