import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive, sweepStaleTempDirs } from '../scripts/stale-temp-dirs.mjs';
import { startThrowawayRedis } from '../scripts/throwaway-redis.mjs';

/** The pid of a process that has exited: a child run to its end. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(child.status).toBe(0);
  return child.pid;
}

/** Makes `root/name`, with `postmaster.pid` naming `postmaster` when given (a PostgreSQL data directory). */
function makeDir(root: string, name: string, postmaster?: number): void {
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, 'data'), 'x');
  if (postmaster !== undefined)
    writeFileSync(join(root, name, 'postmaster.pid'), `${postmaster}\n/some/dir\n`);
}

describe('sweepStaleTempDirs', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sweep-spec-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('removes the directories of its prefix whose process is gone, and nothing else', () => {
    const dead = deadPid();
    expect(processAlive(dead)).toBe(false);
    makeDir(root, `pfx-${dead}-a1b2c3`);
    makeDir(root, `pfx-${dead}-stopped`, deadPid()); // a data directory whose server is gone too
    makeDir(root, `pfx-${process.pid}-mine`); // this process's own
    makeDir(root, `pfx-1-init`); // a live process's (another run)
    makeDir(root, `pfx-${dead}-orphan`, process.pid); // its maker gone, its server still running
    makeDir(root, `other-${dead}-a1b2c3`); // another prefix
    makeDir(root, `pfx-${dead}-a-b`); // not the shape
    makeDir(root, `pfx-x${dead}-a1b2c3`);
    makeDir(root, `pfx-more-${dead}-a1b2c3`); // a longer prefix that starts with this one

    expect(sweepStaleTempDirs('pfx', { root }).sort()).toEqual(
      [`pfx-${dead}-a1b2c3`, `pfx-${dead}-stopped`].sort(),
    );
    expect(readdirSync(root).sort()).toEqual(
      [
        `pfx-${process.pid}-mine`,
        'pfx-1-init',
        `pfx-${dead}-orphan`,
        `other-${dead}-a1b2c3`,
        `pfx-${dead}-a-b`,
        `pfx-x${dead}-a1b2c3`,
        `pfx-more-${dead}-a1b2c3`,
      ].sort(),
    );
  });

  it("reads the prefix literally: a pattern's characters match only themselves", () => {
    const dead = deadPid();
    makeDir(root, `p.x-${dead}-a1b2c3`);
    makeDir(root, `pyx-${dead}-a1b2c3`);
    expect(sweepStaleTempDirs('p.x', { root })).toEqual([`p.x-${dead}-a1b2c3`]);
    expect(readdirSync(root)).toEqual([`pyx-${dead}-a1b2c3`]);
  });

  it('answers none in a directory with nothing to sweep', () => {
    expect(sweepStaleTempDirs('pfx', { root })).toEqual([]);
  });
});

describe('a throwaway server sweeps what an interrupted run of its name left', () => {
  it('removes a gone process’s directory as it starts (redis-server)', async () => {
    const name = `sweep-spec-redis-${process.pid}`;
    const left = join(tmpdir(), `${name}-${deadPid()}-Ab12Cd`);
    mkdirSync(left);
    const redis = await startThrowawayRedis({ name });
    try {
      expect(existsSync(left)).toBe(false);
      expect(existsSync(redis.dir)).toBe(true);
    } finally {
      await redis.stop();
    }
    expect(existsSync(redis.dir)).toBe(false);
  });
});
