/** Whether process `pid` exists (see `stale-temp-dirs.mjs`). */
export function processAlive(pid: number): boolean;

/**
 * Removes the `<prefix>-<pid>-<suffix>` entries of `root` (the temp directory) whose process is gone, and answers
 * their names (see `stale-temp-dirs.mjs`).
 */
export function sweepStaleTempDirs(prefix: string, options?: { readonly root?: string }): string[];
