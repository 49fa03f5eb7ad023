import { claimOf, type ClaimedJob, type ClaimOptions } from '@ultimat3/jobs';
import { Pool } from 'pg';
import { startOwnedPostgres, type OwnedPostgres } from '../test/owned-postgres';
import { request } from '../test/requests';
import { pgPoolExecutor } from './executor/pg-pool-executor';
import { postgresJobDriver, type PostgresJobDriver } from './driver/pg-driver';
import { migrate } from './migrations/migrate';

jest.setTimeout(120_000);

const VT = 30_000;
const busy: ClaimOptions = {
  workerId: 'w',
  slots: [{ queue: 'pg-q', limit: 1, names: ['pg.job'] }],
  visibilityTimeoutMs: VT,
};

/**
 * The claim commits without waiting for its WAL flush (docs/design.md, "The claim commits without waiting for its WAL
 * flush"). Against a server with durable commits that is really crashed (an immediate shutdown: its WAL buffers die
 * with it) and recovered: whichever way the crash falls, a claimed row is either still claimed by that very claim or
 * back as it was — waiting, its attempt uncounted — and then the lost claim's writes are refused and the next claim
 * counts the same attempt again; an ack that committed survives with its claim.
 */
describe('a claim across a PostgreSQL crash (its own server, durable commits)', () => {
  let server: OwnedPostgres;
  let pool: Pool;
  let driver: PostgresJobDriver;

  const connect = (): void => {
    pool = new Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => undefined); // the crash cuts idle clients
    driver = postgresJobDriver({ executor: pgPoolExecutor(pool) });
  };
  /** Crashes the server, starts it again (crash recovery) and reconnects. */
  const crashAndRecover = async (): Promise<void> => {
    await server.crash();
    await pool.end().catch(() => undefined);
    await server.start();
    connect();
  };

  beforeAll(async () => {
    server = await startOwnedPostgres('crashable');
    connect();
    await migrate(pgPoolExecutor(pool));
  });
  afterAll(async () => {
    await pool?.end().catch(() => undefined);
    await server?.close();
  });

  it('a claim the crash lost leaves its row as before: the attempt uncounted, its writes refused', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const queued = request();
      await driver.enqueue(queued);
      const [claimed] = await driver.claim(busy);
      expect(claimed?.id).toBe(queued.id);
      const lost = claimed as ClaimedJob;
      await crashAndRecover();

      const row = await driver.get(queued.id);
      if (row?.state === 'running') {
        // the claim reached the disk before the crash: it holds, exactly as handed out
        outcomes.push('kept');
        expect(row).toMatchObject({ attempt: 1, workerId: 'w', claim: lost.claim });
        expect(await driver.ack(queued.id, claimOf(lost))).toBe(true);
        continue;
      }
      outcomes.push('lost');
      // as it was before the claim: waiting, attempt 0, no claim
      expect(row).toMatchObject({ state: 'ready', attempt: 0, workerId: null, claim: null });
      // the lost claim's writes are refused: it is stale
      expect(await driver.heartbeat(queued.id, claimOf(lost), VT)).toBe(false);
      expect(await driver.ack(queued.id, claimOf(lost))).toBe(false);
      // the next claim takes it with the same attempt number: the lost attempt was never counted
      const [again] = await driver.claim(busy);
      expect(again).toMatchObject({ id: queued.id, attempt: 1 });
      expect(again?.claim).not.toBe(lost.claim);
      expect(await driver.ack(queued.id, claimOf(again as ClaimedJob))).toBe(true);
    }
    // which way each crash fell depends on whether the WAL writer flushed first; both keep every guarantee
    expect(outcomes).toHaveLength(3);
  });

  it('an ack that committed survives the crash, and so does the claim it was fenced on', async () => {
    const queued = request();
    await driver.enqueue(queued);
    const [claimed] = await driver.claim(busy);
    expect(claimed?.id).toBe(queued.id);
    expect(await driver.ack(queued.id, claimOf(claimed as ClaimedJob))).toBe(true);
    await crashAndRecover();
    expect(await driver.get(queued.id)).toMatchObject({ state: 'done', attempt: 1 });
  });
});
