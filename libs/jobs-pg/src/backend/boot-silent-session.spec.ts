import { errorCodeOf, JobsError } from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { partitionHop, type PartitionHop } from '../../../../test/partition-hop';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { bootThroughHop } from '../../test/boot-through-hop';

/** Whether `buffer` holds a complete ReadyForQuery ('Z') among the server's messages, read from its start. */
function readyIn(buffer: Buffer): boolean {
  let at = 0;
  while (at + 5 <= buffer.length) {
    const length = buffer.readInt32BE(at + 1);
    if (at + 1 + length > buffer.length) return false;
    if (buffer[at] === 0x5a) return true;
    at += 1 + length;
  }
  return false;
}

/**
 * A hop that passes the session's opening (startup, authentication, up to the first ReadyForQuery) and then swallows
 * every statement the client sends: a server that opened the session and went silent — what a pooler in front of a
 * database it cannot reach looks like (PgBouncer answers the opening itself and holds each statement until
 * `query_wait_timeout`, or forever at 0).
 */
const silencingHop = (upstreamPort: number): Promise<PartitionHop> =>
  partitionHop(upstreamPort, { cutAfter: (fromServer) => readyIn(fromServer) });

describe('postgresBackend over a server that opens the session and then never answers', () => {
  const db = pgJobsSpec({ migrate: false });

  for (const migrate of [false, true]) {
    it(`fails the boot within connectTimeoutMs and lets the session go (migrate: ${migrate})`, async () => {
      const hop = await silencingHop(Number(new URL(db.url).port));
      try {
        const { outcome: error, startedAt } = await bootThroughHop(db.url, hop.port, migrate);
        expect(error).toBeInstanceOf(JobsError);
        expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
        expect((error as JobsError).meta).toMatchObject({
          reason: 'timeout',
          target: { host: '127.0.0.1', port: hop.port },
        });
        expect(Date.now() - startedAt).toBeLessThan(8_000);
        expect(hop.sessions()).toBe(1);
        expect(hop.wasCut()).toBe(true); // its opening went through: the silence met a statement
        await until(() => hop.ended() === 1); // the boot let its session go
      } finally {
        await hop.stop();
      }
    });
  }
});
