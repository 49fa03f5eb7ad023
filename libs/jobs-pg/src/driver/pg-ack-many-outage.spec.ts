import { Pool } from 'pg';
import { errorCodeOf } from '@ultimat3/jobs';
import { freePort } from '../../../../scripts/free-port.mjs';
import { unclaimedAcks } from '../../../jobs/test/requests';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresJobDriver } from './pg-driver';

/**
 * A batch of acks against a database out of reach fails coded, `X_DRIVER_UNAVAILABLE`: the worker's ack batcher then
 * fails the batch's acks at once (each run sends its own again, backing off, while its lease lasts) rather than
 * sending every ack again one by one into the outage. A statement's own failure stays as thrown: the batcher sends
 * those acks one by one, so the one item at fault fails alone.
 */
describe('the PostgreSQL driver ackMany', () => {
  const db = pgJobsSpec({ migrate: false });

  it('names a database out of reach X_DRIVER_UNAVAILABLE: nothing written', async () => {
    const pool = new Pool({
      connectionString: `postgres://nobody@127.0.0.1:${await freePort()}/none`,
      connectionTimeoutMillis: 2_000,
    });
    try {
      const driver = postgresJobDriver({ executor: pgPoolExecutor(pool) });
      const error = await driver.ackMany!(unclaimedAcks(3)).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
      expect(String(error)).toMatch(
        /PostgreSQL is out of reach \(.*ECONNREFUSED.*\): the batch's settles were not written\./,
      );
    } finally {
      await pool.end();
    }
  });

  it("answers a statement's own failure as thrown (here: no x_jobs, 42P01), uncoded", async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const error = await driver.ackMany!(unclaimedAcks(2)).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(errorCodeOf(error)).toBe('42P01');
  });
});
