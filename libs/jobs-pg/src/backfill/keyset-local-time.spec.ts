import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pgJobsSpec } from '../../test/pg-jobs-spec';

const db = pgJobsSpec({ migrate: false });
const TEST = join(__dirname, '..', '..', 'test');

/** The child's sweeps, run under `tz`. */
async function sweepUnder(tz: string): Promise<unknown> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-r', join(TEST, 'swc-register.js'), join(TEST, 'keyset-local-time.ts'), db.url],
    { env: { ...process.env, TZ: tz }, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
}

describe('a keyset on a timestamp without time zone, in a process whose local time is not UTC', () => {
  const every = { ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], ended: 'done' };

  // pg reads such a column as local time: the cursor bound as UTC text was a wall clock hours off — west of UTC it
  // skipped the rows in between in silence, east of it it read the cursor row again
  it.each(['America/New_York', 'Asia/Tokyo'])(
    'reads every row exactly once under %s',
    async (tz) => {
      expect(await sweepUnder(tz)).toEqual({ at: every, createdAt: every, atTz: every });
    },
    60_000,
  );
});
