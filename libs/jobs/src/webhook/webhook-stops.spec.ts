import type { Duration } from '../util/duration';
import type { JobRunContext } from '../declare/run-args';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { LeaseLostError } from '../errors/runtime-errors';
import { frozenClock } from '../testing/frozen-clock';
import { memoryWebhookLedger } from './memory-webhook-ledger';
import { until } from '../../test/webhook-receiver';
import { webhookSpec } from '../../test/webhook-spec';
import { webhook } from './webhook';
import { deliverWebhook } from './webhook-delivery';

describe('webhook stops: the drain, the deadline, a lost lease', () => {
  const spec = webhookSpec();
  const { turn } = spec;
  const clock = frozenClock();

  function declare(name: string, timeout?: Duration, gate?: Promise<void>) {
    const ledger = memoryWebhookLedger();
    const handle = webhook({
      name,
      tenant: 'none',
      endpoint: async () => {
        await gate;
        return { url: spec.receiver.url(), secret: 's' };
      },
      event: () => ({ topic: 'orders.paid', body: '{"n":1}' }),
      ledger,
      disableAfter: 3,
      destinations: { allowPrivate: true },
      ...(timeout === undefined ? {} : { timeout }),
      clock,
    });
    return { handle, ledger };
  }

  it('SIGTERM during a slow POST lets it finish, records it, and the delivery completes', async () => {
    const { handle, ledger } = declare('webhook.stops.drain-on-wire');
    spec.receiver.answer(() => 'hold');
    await spec.runJobs({ jobs: [handle], clock, workerId: 'draining' });
    const { id } = await handle.enqueue({ endpointId: 'ep', eventId: 'evt' });
    await until('the POST to reach the receiver', () => spec.receiver.requests.length === 1, turn);

    spec.h.worker.beginDrain('SIGTERM');
    const stopping = spec.h.worker.stop();
    await turn();
    expect(spec.receiver.aborted()).toBe(0);
    spec.receiver.release(200);
    await until(
      'the drain to finish',
      async () => (await spec.h.driver.get(id))?.state === 'done',
      turn,
    );
    await stopping;
    expect(spec.receiver.aborted()).toBe(0);
    expect(await ledger.attempts('ep')).toEqual([
      expect.objectContaining({ outcome: 'delivered', status: 200 }),
    ]);
  });

  it('a drain before the POST is sent stops it: nothing posted, nothing recorded, the job handed back uncounted', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { handle, ledger } = declare('webhook.stops.drain-unsent', undefined, gate);
    await spec.runJobs({ jobs: [handle], clock, workerId: 'draining' });
    const { id } = await handle.enqueue({ endpointId: 'ep', eventId: 'evt' });
    await until(
      'the run to hold the job',
      async () => (await spec.h.driver.get(id))?.state === 'running',
      turn,
    );

    spec.h.worker.beginDrain('SIGTERM');
    open();
    await until(
      'the job to be handed back',
      async () => (await spec.h.driver.get(id))?.state === 'ready',
      turn,
    );
    expect(await spec.h.driver.get(id)).toMatchObject({ attempt: 0 });
    expect(spec.receiver.connections()).toBe(0);
    expect(await ledger.attempts('ep')).toEqual([]);
  });

  it('the deadline tears a POST on the wire down and writes no ledger row', async () => {
    const { handle, ledger } = declare('webhook.stops.deadline', '2s');
    spec.receiver.answer(() => 'hold');
    await spec.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({ endpointId: 'ep', eventId: 'evt' });
    await until('the POST to reach the receiver', () => spec.receiver.requests.length === 1, turn);

    await spec.h.advance(2_000);
    await until('the receiver to see the request go', () => spec.receiver.aborted() === 1, turn);
    await until(
      'the attempt to fail',
      async () => (await spec.h.driver.get(id))?.state === 'delayed',
      turn,
    );
    expect((await spec.h.driver.get(id))?.lastError).toContain('X_JOB_TIMEOUT');
    expect(await ledger.attempts('ep')).toEqual([]);
  });

  it('after a drain, the deadline still tears the POST down (through ctx.hardSignal)', async () => {
    const { handle, ledger } = declare('webhook.stops.drain-then-deadline', '2s');
    spec.receiver.answer(() => 'hold');
    await spec.runJobs({ jobs: [handle], clock });
    await handle.enqueue({ endpointId: 'ep', eventId: 'evt' });
    await until('the POST to reach the receiver', () => spec.receiver.requests.length === 1, turn);
    spec.h.worker.beginDrain('SIGTERM');
    await turn();
    expect(spec.receiver.aborted()).toBe(0);
    await spec.h.advance(2_000);
    await until('the receiver to see the request go', () => spec.receiver.aborted() === 1, turn);
    expect(await ledger.attempts('ep')).toEqual([]);
  });

  it('after a drain, a lost lease tears the POST on the wire down: no ledger row, the run ends lost', async () => {
    const { handle, ledger } = declare('webhook.stops.drain-then-lease');
    spec.receiver.answer(() => 'hold');
    const inner = memoryJobDriver({ clock });
    let stolen = false;
    // another worker took the row once its lease lapsed: this worker's renewals are refused from then on
    const driver: JobDriver = {
      ...inner,
      heartbeat: (...args) => (stolen ? Promise.resolve(false) : inner.heartbeat(...args)),
    };
    await spec.runJobs({ jobs: [handle], clock, driver, visibilityTimeoutMs: 3_000 });
    const { id } = await handle.enqueue({ endpointId: 'ep', eventId: 'evt' });
    await until('the POST to reach the receiver', () => spec.receiver.requests.length === 1, turn);
    spec.h.worker.beginDrain('SIGTERM');
    const stopping = spec.h.worker.stop();
    await spec.h.advance(1_000);
    await turn();
    expect(spec.receiver.aborted()).toBe(0);

    stolen = true;
    await spec.h.advance(1_000);
    await until('the receiver to see the request go', () => spec.receiver.aborted() === 1, turn);
    await stopping;
    expect(spec.h.worker.stats()).toMatchObject({ leasesLost: 1, interrupted: 0, completed: 0 });
    expect(await ledger.attempts('ep')).toEqual([]);
    expect(await spec.h.driver.get(id)).toMatchObject({ state: 'running', attempt: 1 });
  });

  it('a lost lease aborts a POST on the wire and writes no ledger row', async () => {
    const ledger = memoryWebhookLedger();
    spec.receiver.answer(() => 'hold');
    const run = new AbortController();
    const ctx: JobRunContext = {
      actor: { id: null, orgId: null },
      signal: run.signal,
      hardSignal: run.signal,
      jobId: 'job-1',
      runId: 'run-1',
      name: 'webhook.stops.lease',
      attempt: 1,
    };
    const delivering = deliverWebhook(
      {
        name: 'webhook.stops.lease',
        endpoint: () => ({ url: spec.receiver.url(), secret: 's' }),
        event: () => ({ topic: 'orders.paid', body: '{}' }),
        ledger,
        disableAfter: 3,
        destinations: { allowPrivate: true },
        clock,
        userAgent: 'spec',
      },
      { endpointId: 'ep', eventId: 'evt' },
      ctx,
    );
    await until('the POST to reach the receiver', () => spec.receiver.requests.length === 1);
    const lost = new LeaseLostError('job-1');
    run.abort(lost);
    await expect(delivering).rejects.toBe(lost);
    await until('the receiver to see the request go', () => spec.receiver.aborted() === 1);
    expect(await ledger.attempts('ep')).toEqual([]);
  });
});
