import type { WorkerStats } from '@ultimat3/jobs';
import { startReceiver, until, type Receiver } from '../../../jobs/test/webhook-receiver';
import { request } from '../../test/requests';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { spawnWorker, type Spawned } from '../../test/worker-process';
import { postgresJobDriver } from '../driver/pg-driver';
import { postgresWebhookLedger } from './pg-webhook-ledger';

/**
 * The drain in a real worker process: SIGTERM lands while the POST is on the wire, the worker lets it finish, records
 * it in the PostgreSQL ledger, settles the job, and only then exits.
 */
describe('webhook: SIGTERM during a slow POST', () => {
  let db: TestDatabase;
  let receiver: Receiver;
  let worker: Spawned<unknown, { stats: WorkerStats }> | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    await receiver?.close();
    await db?.drop();
  });

  it('lets the POST on the wire finish, records it, completes the job, then exits', async () => {
    receiver.answer(() => 'hold');
    worker = spawnWorker('webhook-worker.ts', [db.url, receiver.url()], 'webhook');
    await worker.ready;
    const driver = postgresJobDriver({ executor: db.executor });
    const { id } = await driver.enqueue(
      request({
        name: 'pg.webhook.sigterm',
        queue: 'default',
        input: { endpointId: 'ep-s', eventId: 'evt-s' },
        idempotencyKey: 'ep-s:evt-s',
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
    // the drain has begun; the request stays open and the process alive while the receiver thinks (a drain that
    // tore the request down would show here as an aborted request within these few hundred ms)
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(worker.child.exitCode).toBeNull();
    expect(receiver.aborted()).toBe(0);
    receiver.release(202);

    const stopped = await worker.stopped;
    expect(stopped?.stats).toMatchObject({ completed: 1, interrupted: 0 });
    expect(receiver.aborted()).toBe(0);
    expect(await driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    const ledger = postgresWebhookLedger({ executor: db.executor });
    expect(await ledger.attempts('ep-s')).toEqual([
      expect.objectContaining({ eventId: 'evt-s', outcome: 'delivered', status: 202, attempt: 1 }),
    ]);
    expect(receiver.requests).toHaveLength(1);
  });
});
