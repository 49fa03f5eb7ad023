import type { PoolClient } from 'pg';
import type { WorkerStats } from '@ultimat3/jobs';
import { startReceiver, until, type Receiver } from '../../../jobs/test/webhook-receiver';
import { request } from '../../test/requests';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { spawnWorker, type Spawned } from '../../test/worker-process';
import { postgresJobDriver } from '../driver/pg-driver';
import { postgresWebhookLedger } from './pg-webhook-ledger';

/** The worker's lease in the lease specs: renewed every ~667 ms, lost after 2 s without a renewal landing. */
const VISIBILITY_MS = 2_000;

/**
 * Polls `cond` for up to 15 s: a lost lease is noticed up to a window plus a renewal interval after it is lost, and
 * later on a loaded machine (the receiver helper's `until` gives up after 5 s).
 */
async function eventually(what: string, cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The drain in a real worker process, on the PostgreSQL driver and ledger. SIGTERM lands while the POST is on the
 * wire: the worker lets it finish, records it, settles the job, and only then exits — unless the run's lease is lost
 * meanwhile (another worker took the row, or the renewals stop landing), which tears the POST down and records nothing:
 * the job is someone else's now, and a late answer written to the ledger would sit beside the next worker's delivery.
 */
describe('webhook: SIGTERM during a slow POST', () => {
  let receiver: Receiver;
  let worker: Spawned<unknown, { stats: WorkerStats }> | undefined;
  let locked: PoolClient | undefined;
  const db = pgJobsSpec();
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    if (locked !== undefined) {
      await locked.query('rollback').catch(() => undefined);
      locked.release();
      locked = undefined;
    }
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    worker = undefined;
    await receiver.close();
  });

  /** A worker process holding one delivery's POST open at the receiver, SIGTERMed: answers once its drain began. */
  async function drainingMidPost(endpointId: string, visibilityMs?: number): Promise<string> {
    receiver.answer(() => 'hold');
    const args = [
      db.url,
      receiver.url(),
      ...(visibilityMs === undefined ? [] : [String(visibilityMs)]),
    ];
    worker = spawnWorker('webhook-worker.ts', args, 'webhook');
    await worker.ready;
    const driver = postgresJobDriver({ executor: db.executor });
    const { id } = await driver.enqueue(
      request({
        name: 'pg.webhook.sigterm',
        queue: 'default',
        input: { endpointId, eventId: `evt-${endpointId}` },
        idempotencyKey: `${endpointId}:evt`,
        maxAttempts: 1,
      }),
    );
    await until('the POST to reach the receiver', () => receiver.requests.length === 1);
    const child = worker.child;
    const draining = new Promise((resolve) =>
      child.on('message', (m: { type?: string }) => m.type === 'draining' && resolve(m)),
    );
    child.kill('SIGTERM');
    await draining;
    return id;
  }

  it('lets the POST on the wire finish, records it, completes the job, then exits', async () => {
    const id = await drainingMidPost('ep-s');
    // the drain has begun; the request stays open and the process alive while the receiver thinks (a drain that
    // tore the request down would show here as an aborted request within these few hundred ms)
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(worker?.child.exitCode).toBeNull();
    expect(receiver.aborted()).toBe(0);
    receiver.release(202);

    const stopped = await worker?.stopped;
    expect(stopped?.stats).toMatchObject({ completed: 1, interrupted: 0 });
    expect(receiver.aborted()).toBe(0);
    const driver = postgresJobDriver({ executor: db.executor });
    expect(await driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    const ledger = postgresWebhookLedger({ executor: db.executor });
    expect(await ledger.attempts('ep-s')).toEqual([
      expect.objectContaining({
        eventId: 'evt-ep-s',
        outcome: 'delivered',
        status: 202,
        attempt: 1,
      }),
    ]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('the lease stolen after the drain tears the POST down and writes no ledger row', async () => {
    const id = await drainingMidPost('ep-stolen', VISIBILITY_MS);
    // another worker's claim takes the row (as one does once the lease lapsed): the next renewal finds it moved on
    await db.executor.query(
      `update x_jobs set worker_id = 'thief', claim = gen_random_uuid(),
         lease_expires_at = now() + interval '1 minute'
       where id = $1 and state = 'running'`,
      [id],
    );
    await eventually('the receiver to see the request go', () => receiver.aborted() === 1);
    const stopped = await worker?.stopped;
    expect(stopped?.stats).toMatchObject({ leasesLost: 1, completed: 0, interrupted: 0 });
    const ledger = postgresWebhookLedger({ executor: db.executor });
    expect(await ledger.attempts('ep-stolen')).toEqual([]);
    // the row is the thief's, untouched by the drained worker
    const driver = postgresJobDriver({ executor: db.executor });
    expect(await driver.get(id)).toMatchObject({ state: 'running', workerId: 'thief' });
  });

  it('the lease lapsing after the drain (no renewal lands) tears the POST down and writes no ledger row', async () => {
    const id = await drainingMidPost('ep-lapsed', VISIBILITY_MS);
    // the row locked: every renewal hangs on the lock, so none lands within the visibility timeout
    locked = await db.pool.connect();
    await locked.query('begin');
    await locked.query('select id from x_jobs where id = $1 for update', [id]);
    await eventually('the receiver to see the request go', () => receiver.aborted() === 1);
    await locked.query('rollback');
    const stopped = await worker?.stopped;
    expect(stopped?.stats).toMatchObject({ leasesLost: 1, completed: 0, interrupted: 0 });
    const ledger = postgresWebhookLedger({ executor: db.executor });
    expect(await ledger.attempts('ep-lapsed')).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
  });
});
