import { errorCodeOf } from '@ultimat3/jobs';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresBackend } from './pg-backend';

/** The longest delay a Node timer keeps (2^31-1 ms); a longer one fires after 1 ms. */
const LONGEST_TIMER_MS = 2_147_483_647;

describe('postgres.connectTimeoutMs past what a timer can wait', () => {
  const db = pgJobsSpec({ migrate: false });

  it('the longest a timer can wait boots (no step gives up at once)', async () => {
    const backend = await postgresBackend({ url: db.url }, { connectTimeoutMs: LONGEST_TIMER_MS });
    await backend.close();
  });

  it('a longer one is refused before anything connects, not failed as a timeout', async () => {
    const error = await postgresBackend(
      { url: db.url },
      { connectTimeoutMs: LONGEST_TIMER_MS + 1 },
    ).catch((e: unknown) => e);
    expect(errorCodeOf(error)).toBe('X_INVARIANT');
  });
});
