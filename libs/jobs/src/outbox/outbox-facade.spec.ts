import { setJobsFacade } from '../declare/ambient';
import { job } from '../declare/job';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { currentOutboxTx, runInOutboxTx } from './ambient-tx';
import { memoryOutboxStore } from './memory-outbox-store';
import { outboxJobsFacade, type OutboxMode } from './outbox-facade';
import { outboxRequest } from './testing/outbox-store.conformance';

const notify = job({
  name: 'outbox-facade.notify',
  input: t.object({ postId: t.uuid }),
  idempotencyKey: ({ postId }) => `notify:${postId}`,
  tenant: 'none',
});
const POST = '0190a6f2-6b1e-7c3a-8f00-0000000000aa';

function setup(mode?: OutboxMode) {
  const clock = frozenClock();
  const store = memoryOutboxStore({ clock });
  const driver = memoryJobDriver({ clock });
  const woken: string[] = [];
  const facade = outboxJobsFacade(
    { store, driver, clock, ...(mode ? { mode } : {}), onEnqueued: (q) => woken.push(q) },
    currentOutboxTx,
  );
  return { clock, store, driver, woken, facade };
}

describe('outboxJobsFacade', () => {
  it('stages inside the caller transaction and answers the ids it will publish under', async () => {
    const { store, driver, facade, woken } = setup();
    const tx = store.begin();
    const request = outboxRequest();
    expect(await facade.enqueue(request, { tx })).toEqual({
      id: request.id,
      runId: request.runId,
      deduped: false,
    });
    expect(await driver.stats()).toEqual([]);
    expect(woken).toEqual([]);
    expect(await store.retained()).toBe(0); // not until the caller commits
    tx.commit();
    expect(await store.retained()).toBe(1);
  });

  it('joins the ambient transaction, and an explicit { tx } wins over it', async () => {
    const { store, driver, facade } = setup('required');
    const ambient = store.begin();
    const explicit = store.begin();
    const [a, b] = [outboxRequest(), outboxRequest()];
    await runInOutboxTx(ambient, async () => {
      await facade.enqueue(a, {});
      await facade.enqueue(b, { tx: explicit });
    });
    explicit.commit();
    const [only] = await store.claim({ claimant: 'r', limit: 10, leaseMs: 1 });
    expect(only?.id).toBe(b.id);
    ambient.rollback();
    expect(await store.retained()).toBe(1);
    expect(await driver.stats()).toEqual([]);
    expect(currentOutboxTx()).toBeUndefined();
  });

  it('publishes straight to the driver outside a transaction (mode optional)', async () => {
    const { store, driver, facade, woken } = setup();
    const request = outboxRequest();
    expect(await facade.enqueue(request, {})).toEqual({
      id: request.id,
      runId: request.runId,
      deduped: false,
    });
    expect((await driver.get(request.id))?.state).toBe('ready');
    expect(await store.retained()).toBe(0);
    expect(woken).toEqual([request.queue]);
    expect(await facade.enqueue(request, {})).toMatchObject({ deduped: true });
    expect(woken).toEqual([request.queue]);
  });

  it('enqueueMany stages every row in the caller transaction, or publishes them in one batch outside one', async () => {
    const { store, driver, facade, woken } = setup();
    const tx = store.begin();
    const staged = [outboxRequest(), outboxRequest()];
    expect(await facade.enqueueMany(staged, { tx })).toEqual(
      staged.map((r) => ({ id: r.id, runId: r.runId, deduped: false })),
    );
    expect(await store.retained()).toBe(0);
    tx.commit();
    expect(await store.retained()).toBe(2);
    expect(await driver.stats()).toEqual([]);

    const direct = [outboxRequest({ queue: 'q1' }), outboxRequest({ queue: 'q1' })];
    const results = await facade.enqueueMany(direct, {});
    expect(results.map((r) => r.deduped)).toEqual([false, false]);
    expect((await driver.get(direct[1]!.id))?.state).toBe('ready');
    expect(woken).toEqual(['q1']);
  });

  it('enqueueMany in a transaction judges a repeated key as enqueued one by one: the first item’s ids, deduped', async () => {
    const { store, facade } = setup();
    const tx = store.begin();
    const first = outboxRequest({ idempotencyKey: 'k:1' });
    const other = outboxRequest({ idempotencyKey: 'k:2' });
    const again = outboxRequest({ idempotencyKey: 'k:1' });
    const otherTenant = outboxRequest({ idempotencyKey: 'k:1', tenantId: 'org-b' });
    expect(await facade.enqueueMany([first, other, again, otherTenant], { tx })).toEqual([
      { id: first.id, runId: first.runId, deduped: false },
      { id: other.id, runId: other.runId, deduped: false },
      { id: first.id, runId: first.runId, deduped: true },
      { id: otherTenant.id, runId: otherTenant.runId, deduped: false },
    ]);
    tx.commit();
    const claimed = await store.claim({ claimant: 'r', limit: 10, leaseMs: 1 });
    expect(claimed.map((r) => r.id)).toEqual([first.id, other.id, otherTenant.id]);
  });

  it("enqueueMany in a transaction refuses a repeated key under onConflict: 'error', staging nothing", async () => {
    const { store, facade } = setup();
    const tx = store.begin();
    const first = outboxRequest({ idempotencyKey: 'k:1', onConflict: 'error' });
    const again = outboxRequest({ idempotencyKey: 'k:1', onConflict: 'error' });
    await expect(facade.enqueueMany([first, again], { tx })).rejects.toMatchObject({
      code: 'X_JOB_DUPLICATE',
    });
    tx.commit();
    expect(await store.retained()).toBe(0);
  });

  it('enqueueMany outside a transaction is X_OUTBOX_NO_TX under mode required, staging nothing', async () => {
    const { store, driver, facade } = setup('required');
    await expect(facade.enqueueMany([outboxRequest()], {})).rejects.toMatchObject({
      code: 'X_OUTBOX_NO_TX',
    });
    expect(await store.retained()).toBe(0);
    expect(await driver.stats()).toEqual([]);
  });

  it('refuses an enqueue outside a transaction with X_OUTBOX_NO_TX under mode required', async () => {
    const { store, driver, facade } = setup('required');
    const uninstall = setJobsFacade(facade);
    try {
      await expect(notify.enqueue({ postId: POST })).rejects.toMatchObject({
        code: 'X_OUTBOX_NO_TX',
      });
      expect(await driver.stats()).toEqual([]);
      expect(await store.retained()).toBe(0);
      // the same call inside one is staged, with ids a caller can keep
      const tx = store.begin();
      const queued = await notify.enqueue({ postId: POST }, { tx });
      tx.commit();
      const [record] = await store.claim({ claimant: 'r', limit: 1, leaseMs: 1 });
      expect(record?.request).toMatchObject({ id: queued.id, runId: queued.runId });
    } finally {
      uninstall();
    }
  });
});
