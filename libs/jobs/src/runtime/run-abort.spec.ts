import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import {
  JobDrainedError,
  JobSlotLostError,
  JobTimeoutError,
  LeaseLostError,
} from '../errors/runtime-errors';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { gate, untilAborted } from '../testing/test-kit';
import { RunAbort } from './run-abort';

const drained = (): JobDrainedError => new JobDrainedError('w1', 'SIGTERM');

describe('RunAbort: a soft stop (the drain) and a hard stop (deadline, lost lease)', () => {
  it('a drain aborts signal only; a lost lease after it still aborts hardSignal', () => {
    const run = new RunAbort();
    const { signal, hardSignal } = run;
    const drain = drained();
    run.abort(drain);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(drain);
    expect(hardSignal.aborted).toBe(false);
    expect(run.hardStopped).toBe(false);

    const lost = new LeaseLostError('job-1');
    run.abort(lost);
    expect(hardSignal.aborted).toBe(true);
    expect(hardSignal.reason).toBe(lost);
    expect(run.hardReason).toBe(lost);
    // a signal aborts once: the body's ctx.signal keeps saying why it was first stopped
    expect(signal.reason).toBe(drain);
    expect(run.reason).toBe(drain);
  });

  it('a hard stop first aborts both signals with its reason; a drain after it changes nothing', () => {
    const run = new RunAbort();
    const timeout = new JobTimeoutError('Job "x" attempt', 1_000);
    run.abort(timeout);
    run.abort(drained());
    run.abort(new LeaseLostError('job-1'));
    expect(run.signal.reason).toBe(timeout);
    expect(run.hardSignal.reason).toBe(timeout);
    expect(run.reason).toBe(timeout);
    expect(run.hardReason).toBe(timeout);
  });

  it('signals read after the stops are made already aborted, each with its own reason', () => {
    const run = new RunAbort();
    const drain = drained();
    const slot = new JobSlotLostError('job-1', 'k');
    run.abort(drain);
    run.abort(slot);
    expect(run.signal.reason).toBe(drain);
    expect(run.hardSignal.reason).toBe(slot);
  });

  it('a caller signal is classified by its reason: X_DRAINING soft, anything else hard', () => {
    const soft = new AbortController();
    const a = RunAbort.following(soft.signal);
    soft.abort(drained());
    expect([a.run.aborted, a.run.hardStopped]).toEqual([true, false]);

    const cancel = new AbortController();
    cancel.abort(new Error('cancelled by the caller'));
    const b = RunAbort.following(cancel.signal);
    expect([b.run.aborted, b.run.hardStopped]).toEqual([true, true]);
    a.dispose();
    b.dispose();
  });

  it('onAbort is told once, of the first stop; onStop of every later stop, after the signals', () => {
    const run = new RunAbort();
    const heard: string[] = [];
    run.signal.addEventListener('abort', () => heard.push('signal'));
    run.hardSignal.addEventListener('abort', () => heard.push('hardSignal'));
    run.onAbort((reason) => heard.push(`first ${errorCodeOf(reason)}`));
    const off = run.onStop((reason) => heard.push(`each ${errorCodeOf(reason)}`));
    run.abort(drained());
    run.abort(new LeaseLostError('job-1'));
    off();
    run.abort(new JobTimeoutError('Job "x" attempt', 1));
    expect(heard).toEqual([
      'signal',
      'first X_DRAINING',
      'each X_DRAINING',
      'hardSignal',
      'each X_JOB_LEASE_LOST',
    ]);
    const late: unknown[] = [];
    run.onAbort((reason) => late.push(reason));
    run.onStop((reason) => late.push(reason));
    expect(late).toEqual([run.reason]);
  });

  it('a stop listener that removes itself while told does not make the next one miss the stop', () => {
    const run = new RunAbort();
    const heard: string[] = [];
    const off = run.onStop(() => {
      heard.push('once');
      off();
    });
    run.onStop((reason) => heard.push(`each ${errorCodeOf(reason)}`));
    run.abort(drained());
    run.abort(new LeaseLostError('job-1'));
    expect(heard).toEqual(['once', 'each X_DRAINING', 'each X_JOB_LEASE_LOST']);
  });
});

describe('RunAbort in a drained attempt (driven clock)', () => {
  const input = t.object({ n: t.number });
  const VISIBILITY = 3_000;
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A worker whose heartbeats answer "the row moved on" once `steal()` is called (another worker took the row). */
  async function start(handle: Parameters<typeof runJobs>[0]['jobs'][number]) {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    let stolen = false;
    const driver: JobDriver = {
      ...inner,
      heartbeat: (...args) => (stolen ? Promise.resolve(false) : inner.heartbeat(...args)),
    };
    h = await runJobs({ jobs: [handle], clock, driver, visibilityTimeoutMs: VISIBILITY });
    return { h, steal: () => (stolen = true) };
  }

  /** A body that ignores the drain (finishing what is on the wire) and unwinds only on a hard stop. */
  function honouringHardStops(name: string, seen: unknown[], timeout?: '10s') {
    return job({
      name,
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 2 },
      ...(timeout === undefined ? {} : { timeout }),
      async run({ ctx }) {
        try {
          await untilAborted(ctx.hardSignal);
        } catch (error) {
          seen.push(ctx.signal.reason, error);
          throw error;
        }
      },
    });
  }

  it('drain, then a lost lease: the body sees it on hardSignal and the attempt ends lost, not handed back', async () => {
    const seen: unknown[] = [];
    const handle = honouringHardStops('run-abort.drain-then-lease', seen);
    const { h, steal } = await start(handle);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    h.worker.beginDrain('SIGTERM');
    const stopping = h.worker.stop();
    await h.advance(VISIBILITY / 3);
    expect(seen).toEqual([]);
    expect(h.worker.stats().inFlight).toBe(1);

    steal();
    await h.advance(VISIBILITY / 3);
    await stopping;
    expect(seen.map(errorCodeOf)).toEqual(['X_DRAINING', 'X_JOB_LEASE_LOST']);
    expect(h.worker.stats()).toMatchObject({ leasesLost: 1, interrupted: 0, inFlight: 0 });
    // not handed back: the row is no longer this worker's (it stays as the thief left it)
    expect(await h.driver.get(id)).toMatchObject({ state: 'running', attempt: 1 });
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(0);
  });

  it('drain, then the deadline: the body sees X_JOB_TIMEOUT on hardSignal and the job is handed on uncounted', async () => {
    const seen: unknown[] = [];
    const handle = honouringHardStops('run-abort.drain-then-deadline', seen, '10s');
    const { h } = await start(handle);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    h.worker.beginDrain('SIGTERM');
    await h.advance(9_999);
    expect(seen).toEqual([]);

    await h.advance(1);
    expect(seen.map(errorCodeOf)).toEqual(['X_DRAINING', 'X_JOB_TIMEOUT']);
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
    expect(h.worker.stats()).toMatchObject({ interrupted: 1, inFlight: 0 });
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(0);
  });

  it('drain, then a lost lease, a body that ignores every signal: the wait ends at once, logged abandoned', async () => {
    const working = gate();
    const handle = job({
      name: 'run-abort.ignores-all',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => working.promise,
    });
    const { h, steal } = await start(handle);
    await handle.enqueue({ n: 1 });
    await h.settle();
    h.worker.beginDrain('SIGTERM');
    steal();
    await h.advance(VISIBILITY / 3);
    expect(h.worker.stats()).toMatchObject({ leasesLost: 1, interrupted: 0, inFlight: 0 });
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(0);

    working.open();
    await h.settle();
    const abandoned = h.logger.named('jobs.timeout.abandoned');
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]?.fields).toMatchObject({ cause: 'lease-lost' });
  });
});
