import { Client } from 'pg';
import { recordingLogger } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../../test/until';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { startQueueWake, WAKE_REDIAL_MAX_MS, WAKE_REDIAL_MS } from './queue-wake';

/**
 * The wait between re-dials of a wake that cannot reach its database: `WAKE_REDIAL_MS`, doubled after each failed
 * dial up to `WAKE_REDIAL_MAX_MS` — an outage is neither hammered nor left unnoticed for long — and back to
 * `WAKE_REDIAL_MS` once a session is proven live, so the next drop is re-dialled promptly.
 */
describe('a wake re-dialling its session (driven clock)', () => {
  const db = pgJobsSpec();

  it('doubles its wait after each failed dial up to WAKE_REDIAL_MAX_MS, and starts over once proven live', async () => {
    const clock = frozenClock();
    const logger = recordingLogger();
    const failures = 8;
    let dials = 0;
    const clients: Client[] = [];
    const wake = startQueueWake({
      listener: () => {
        dials++;
        if (dials <= failures) return Promise.reject(new Error('unreachable'));
        const client = new Client({ connectionString: db.url });
        clients.push(client);
        return Promise.resolve(client);
      },
      executor: db.executor,
      target: { signalEnqueued: () => undefined, setWakeLive: () => undefined },
      clock,
      logger,
    });
    const waits = (): unknown[] =>
      logger.named('jobs.wake.lost').map((entry) => entry.fields?.['redialInMs']);
    try {
      const expected: number[] = [];
      for (let wait = WAKE_REDIAL_MS; expected.length < failures; wait *= 2) {
        expected.push(Math.min(wait, WAKE_REDIAL_MAX_MS));
      }
      expect(expected.slice(-2)).toEqual([WAKE_REDIAL_MAX_MS, WAKE_REDIAL_MAX_MS]);
      for (let n = 0; n < failures; n++) {
        await until(() => waits().length === n + 1);
        await clock.advance(waits()[n] as number);
      }
      expect(waits()).toEqual(expected);
      await until(() => wake.live());

      const pid = (clients[0] as unknown as { processID: number }).processID;
      await db.pool.query('select pg_terminate_backend($1)', [pid]);
      await until(() => waits().length === failures + 1);
      expect(waits()[failures]).toBe(WAKE_REDIAL_MS);
    } finally {
      await wake.stop();
    }
  });
});
