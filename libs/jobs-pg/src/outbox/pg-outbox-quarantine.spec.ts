import {
  OUTBOX_PUBLISH_ATTEMPTS,
  outboxRelay,
  recordingLogger,
  type EnqueueRequest,
} from '@ultimat3/jobs';
import { outboxRequest } from '@ultimat3/jobs/testing';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgClientTx, stageInTx } from '../../test/outbox-tx';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';

const db = pgJobsSpec({ emptyBeforeEach: ['x_outbox', 'x_job_steps', 'x_jobs'] });

/**
 * Writes a staged row straight into `x_outbox`, the way a build before the value contract staged it: a request with
 * `priority: 1.5`, which no enqueue can store in the integer column. The staging cannot see it; only the publish can.
 */
async function stageUnpublishable(
  staged: (request: EnqueueRequest) => unknown = (r) => r,
): Promise<EnqueueRequest> {
  const request = outboxRequest({ name: 'poison', runAt: Date.now(), priority: 1.5 });
  await db.pool.query(
    `insert into x_outbox (id, run_id, name, queue, request, staged_at, tx_id)
     values ($1, $2, $3, $4, $5, clock_timestamp(), pg_current_xact_id())`,
    [request.id, request.runId, request.name, request.queue, JSON.stringify(staged(request))],
  );
  return request;
}

/** Polls `check` every 5 ms until it holds; answers the milliseconds it took (fails after `withinMs`). */
async function timeUntil(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > withinMs)
      throw new Error(`condition not met in ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - start;
}

describe('outboxRelay on PostgreSQL: one unpublishable row', () => {
  it('lets the 5 good rows committed after it become jobs within a second, and quarantines it', async () => {
    const store = postgresOutboxStore({ executor: db.executor, txExecutor: pgClientTx });
    const driver = postgresJobDriver({ executor: db.executor });
    const logger = recordingLogger();
    const poison = await stageUnpublishable();
    const good: EnqueueRequest[] = [];
    for (let i = 0; i < 5; i++) {
      const request = outboxRequest({ name: `good-${i}`, runAt: Date.now() });
      await stageInTx(db.pool, store, [request]);
      good.push(request);
    }
    const jobs = async (): Promise<number> => {
      const { rows } = await db.pool.query<{ n: number }>(
        'select count(*)::int as n from x_jobs where id = any($1::uuid[])',
        [good.map((r) => r.id)],
      );
      return rows[0]?.n ?? 0;
    };

    // real time, the default interval (200 ms): the measured figures are printed, the bounds generous
    const relay = outboxRelay({ store, driver, logger });
    relay.start();
    try {
      const toJobs = await timeUntil(async () => (await jobs()) === 5, 1_000);
      const toQuarantine = await timeUntil(
        async () => (await store.quarantined()).length === 1,
        5_000,
      );
      process.stdout.write(
        `poison row: 5 good rows became jobs in ${toJobs.toFixed(0)} ms; quarantined after ${toQuarantine.toFixed(0)} ms more\n`,
      );
    } finally {
      await relay.stop();
    }

    const [listed] = await store.quarantined();
    expect(listed).toMatchObject({
      id: poison.id,
      code: 'X_OUTBOX_QUARANTINED',
      attempts: OUTBOX_PUBLISH_ATTEMPTS,
    });
    expect(listed?.error).toMatch(/priority|22P02|integer/i);
    expect(await store.retained()).toBe(0);
    expect(await jobs()).toBe(5);
    const { rows } = await db.pool.query(
      'select quarantine_code, quarantined_at is not null as out, attempts from x_outbox where id = $1',
      [poison.id],
    );
    expect(rows).toEqual([
      { quarantine_code: 'X_OUTBOX_QUARANTINED', out: true, attempts: OUTBOX_PUBLISH_ATTEMPTS },
    ]);
    expect(logger.named('jobs.outbox.quarantined').map((e) => e.fields.id)).toEqual([poison.id]);
    expect(relay.stats()).toMatchObject({ published: 5, quarantined: 1 });
  });

  it('holds the rows staged after it in its transaction, and publishes them in order once restored', async () => {
    const store = postgresOutboxStore({ executor: db.executor, txExecutor: pgClientTx });
    const refusing = postgresJobDriver({ executor: db.executor });
    let fixed = false;
    const driver = {
      ...refusing,
      enqueue: (request: EnqueueRequest) =>
        request.name === 'createInvoice' && !fixed
          ? Promise.reject(
              Object.assign(new Error('invoice service refused'), { code: 'X_DOWNSTREAM' }),
            )
          : refusing.enqueue(request),
    };
    const [invoice, charge] = [
      outboxRequest({ name: 'createInvoice', runAt: Date.now() }),
      outboxRequest({ name: 'chargeCard', runAt: Date.now() }),
    ];
    await stageInTx(db.pool, store, [invoice!, charge!]);
    const relay = outboxRelay({ store, driver, maxPublishAttempts: 2 });
    await relay.runOnce();
    await relay.runOnce();
    const listed = await store.quarantined();
    expect(listed.map((q) => [q.id, q.code])).toEqual([
      [invoice!.id, 'X_OUTBOX_QUARANTINED'],
      [charge!.id, 'X_OUTBOX_HELD_BEHIND'],
    ]);
    expect(await relay.runOnce()).toMatchObject({ claimed: 0 });
    const created = async (id: string) =>
      (await db.pool.query('select 1 from x_jobs where id = $1', [id])).rowCount;
    expect(await created(charge!.id)).toBe(0);

    fixed = true;
    expect(await store.restore(listed.map((q) => q.id))).toBe(2);
    expect(await relay.runOnce()).toMatchObject({ claimed: 2, published: 2 });
    const { rows } = await db.pool.query<{ id: string }>(
      'select id from x_jobs where id = any($1::uuid[]) order by created_at, id',
      [[invoice!.id, charge!.id]],
    );
    expect(rows.map((r) => r.id)).toEqual([invoice!.id, charge!.id]);
  });

  it('quarantines a row whose request is not an object (JSON null), and publishes the row staged after it', async () => {
    const store = postgresOutboxStore({ executor: db.executor, txExecutor: pgClientTx });
    const driver = postgresJobDriver({ executor: db.executor });
    const poison = await stageUnpublishable(() => null);
    const good = outboxRequest({ name: 'good', runAt: Date.now() });
    await stageInTx(db.pool, store, [good]);
    const logger = recordingLogger();
    const relay = outboxRelay({ store, driver, logger, maxPublishAttempts: 2 });
    // reading the name of a null request threw the whole pass: the batch stayed claimed, and was claimed again with it
    expect(await relay.runOnce()).toMatchObject({ claimed: 2, published: 1 });
    expect(await relay.runOnce()).toMatchObject({ claimed: 1, quarantined: 1 });
    expect((await driver.get(good.id))?.state).toBe('ready');
    const [listed] = await store.quarantined();
    expect(listed).toMatchObject({ id: poison.id, code: 'X_OUTBOX_QUARANTINED', request: null });
    expect(listed?.error).toMatch(/^X_VALUE_INVALID/);
    expect(logger.named('jobs.outbox.quarantined')[0]?.fields).toMatchObject({ job: 'undefined' });
    expect(relay.stats().tickFailures).toBe(0);
  });
});
