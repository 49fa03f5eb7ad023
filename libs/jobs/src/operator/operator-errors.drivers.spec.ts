import { job } from '../declare/job';
import type { JobsBackend } from '../driver/backend';
import type { EnqueueRequest, JobDriver } from '../driver/job-driver';
import { claimOf } from '../driver/job-row';
import { memoryBackend } from '../driver/memory';
import { errorCodeOf, JobsError } from '../errors/jobs-error';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { runJobs } from '../testing/run-jobs';
import { thrownCode, untilAborted } from '../testing/test-kit';
import { uuidv7 } from '../util/ids';
import { bulkJobs } from './bulk';
import { inspectJob } from './inspect-job';
import { cancelJob, promoteJob, removeJob, retryFromStep } from './job-actions';
import { listJobs } from './list-jobs';
import { inspectStats, inspectWorkers, pauseQueue } from './queues';
import { inspectTasks } from './tasks';
import { enqueueRequest } from '../../test/requests';
import { scratchPostgres, scratchRedis } from '../../test/scratch-backends';

/** One backend this file opens for real, on storage of its own; `drop` removes that storage. */
interface Opened {
  readonly backend: JobsBackend;
  drop(): Promise<void>;
}

const BACKENDS: readonly [string, (clock: FrozenClock) => Promise<Opened>][] = [
  [
    'memory',
    (clock) => Promise.resolve({ backend: memoryBackend({ clock }), drop: async () => {} }),
  ],
  ['PostgreSQL', (clock) => scratchPostgres('x_op_errors', clock)],
  ['Redis', (clock) => scratchRedis('x-op-errors', clock)],
];

const Q = 'op-errors';
const VT = 30_000;

/** What the running body of `op-errors.abort` did after its cancel: the code its step write was refused with. */
const afterCancel: { code: string | undefined; reason: string | undefined } = {
  code: undefined,
  reason: undefined,
};

/** Waits for the abort, then tries to write a step: a cancelled attempt's write is refused. */
const abortRun = job({
  name: 'op-errors.abort',
  queue: 'op-errors-abort',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `abort:${n}`,
  tenant: 'none',
  retry: { attempts: 1 },
  async run({ ctx, step }) {
    try {
      await untilAborted(ctx.signal);
    } catch (error) {
      afterCancel.reason = errorCodeOf(error);
    }
    afterCancel.code = await thrownCode(() => step.run('after-cancel', () => Promise.resolve(1)));
  },
});

/**
 * Every error code of the operator surface, reached through the projection (what `JobsService`, `x`, the admin page
 * and the MCP tools call) on each driver: memory, PostgreSQL and Redis.
 */
describe.each(BACKENDS)('operator error codes on %s', (_label, open) => {
  jest.setTimeout(30_000);
  let clock: FrozenClock;
  let opened: Opened;
  let driver: JobDriver;
  beforeAll(async () => {
    clock = frozenClock();
    opened = await open(clock);
    driver = opened.backend.driver;
  });
  afterAll(async () => {
    await opened?.backend.close();
    await opened?.drop();
  });

  let seq = 0;
  function request(overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
    seq += 1;
    const id = uuidv7(clock.now());
    return enqueueRequest({
      id,
      runId: uuidv7(clock.now()),
      name: 'op-errors.job',
      // a queue per row: a claim takes exactly the row the test made
      queue: `${Q}-${seq}`,
      input: { n: seq },
      idempotencyKey: `k-${id}`,
      runAt: clock.now(),
      maxAttempts: 1,
      ...overrides,
    });
  }

  /** One row of `Q`, claimed: running under worker `w`. */
  async function running(overrides: Partial<EnqueueRequest> = {}) {
    const made = request(overrides);
    const { id } = await driver.enqueue(made);
    const claimed = await driver.claim({
      workerId: 'w',
      slots: [{ queue: made.queue, limit: 1 }],
      visibilityTimeoutMs: VT,
    });
    expect(claimed.map((r) => r.id)).toEqual([id]);
    return claimed[0]!;
  }

  /** One row dead-lettered by its one attempt. */
  async function dead(overrides: Partial<EnqueueRequest> = {}): Promise<string> {
    const row = await running(overrides);
    await driver.nack(row.id, { ...claimOf(row), kind: 'dead', error: 'X_BOOM: no' });
    return row.id;
  }

  const code = thrownCode;
  const unknown = () => uuidv7(clock.now());

  it('X_JOB_NOT_CANCELLABLE: cancelJob of a finished row or an unknown id, the row left as it ended', async () => {
    const id = await dead();
    const before = await driver.get(id);
    const refused = await cancelJob(driver, id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(JobsError);
    expect(refused).toMatchObject({ code: 'X_JOB_NOT_CANCELLABLE', meta: { id, state: 'dead' } });
    expect(await driver.get(id)).toEqual(before);

    const { id: live } = await driver.enqueue(request());
    expect(await cancelJob(driver, live, 'op')).toMatchObject({ id: live, state: 'cancelled' });
    expect(await code(() => cancelJob(driver, live))).toBe('X_JOB_NOT_CANCELLABLE');
    const ghost = unknown();
    expect(await cancelJob(driver, ghost).catch((error: unknown) => error)).toMatchObject({
      code: 'X_JOB_NOT_CANCELLABLE',
      meta: { id: ghost, state: 'unknown' },
    });
  });

  it('X_JOB_NOT_FOUND: inspectJob, retryFromStep, removeJob and promoteJob of an id no queue holds', async () => {
    const ghost = unknown();
    expect(await code(() => inspectJob(driver, ghost))).toBe('X_JOB_NOT_FOUND');
    expect(await code(() => retryFromStep(driver, ghost))).toBe('X_JOB_NOT_FOUND');
    expect(await code(() => retryFromStep(driver, ghost, 'a'))).toBe('X_JOB_NOT_FOUND');
    expect(await code(() => removeJob(driver, ghost))).toBe('X_JOB_NOT_FOUND');
    expect(await code(() => promoteJob(driver, ghost))).toBe('X_JOB_NOT_FOUND');
  });

  it('X_JOB_NOT_REQUEUEABLE and X_JOB_DUPLICATE: retryFromStep of a live row, of a key a live job holds', async () => {
    const live = await driver.enqueue(request());
    expect(await code(() => retryFromStep(driver, live.id))).toBe('X_JOB_NOT_REQUEUEABLE');
    expect((await driver.get(live.id))?.state).toBe('ready');

    const key = `held-${unknown()}`;
    const finished = await dead({ idempotencyKey: key });
    await driver.enqueue(request({ idempotencyKey: key }));
    expect(await code(() => retryFromStep(driver, finished))).toBe('X_JOB_DUPLICATE');
    expect((await driver.get(finished))?.state).toBe('dead');
    expect(await code(() => bulkJobs(driver, 'requeue', { state: 'ready', queue: Q }))).toBe(
      'X_JOB_NOT_REQUEUEABLE',
    );
  });

  it('X_JOB_NOT_REMOVABLE: removeJob and bulk remove of a running row, which stays running', async () => {
    const row = await running();
    expect(await code(() => removeJob(driver, row.id))).toBe('X_JOB_NOT_REMOVABLE');
    expect(await code(() => bulkJobs(driver, 'remove', { state: 'running', queue: Q }))).toBe(
      'X_JOB_NOT_REMOVABLE',
    );
    expect((await driver.get(row.id))?.state).toBe('running');
    await driver.ack(row.id, claimOf(row));
  });

  it('X_JOB_NOT_PROMOTABLE: promoteJob of a row not waiting on its run time, bulk promote of a state outside PROMOTABLE_STATES', async () => {
    const { id } = await driver.enqueue(request({ runAt: clock.now() + 60_000 }));
    expect(await promoteJob(driver, id)).toMatchObject({ id, state: 'ready' });
    expect(await code(() => promoteJob(driver, id))).toBe('X_JOB_NOT_PROMOTABLE');
    expect(await code(() => bulkJobs(driver, 'promote', { state: 'dead', queue: Q }))).toBe(
      'X_JOB_NOT_PROMOTABLE',
    );
  });

  it('X_JOB_PAGE_INVALID: listJobs over MAX_JOB_PAGE, or with a cursor no page produced (naming which)', async () => {
    expect(await code(() => listJobs(driver, { limit: 201 }))).toBe('X_JOB_PAGE_INVALID');
    for (const cursor of ['after', 'before'] as const) {
      const refused = await listJobs(driver, { [cursor]: 'not-a-cursor' }).catch(
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: 'X_JOB_PAGE_INVALID', meta: { cursor } });
    }
  });

  it('X_NOT_IMPLEMENTED: the same calls over this driver without its introspect (cancel: X_JOB_NOT_CANCELLABLE)', async () => {
    const bare: JobDriver = { ...driver, introspect: undefined };
    const { id } = await driver.enqueue(request());
    expect(await code(() => cancelJob(bare, id))).toBe('X_JOB_NOT_CANCELLABLE');
    for (const call of [
      () => listJobs(bare),
      () => retryFromStep(bare, id),
      () => removeJob(bare, id),
      () => promoteJob(bare, id),
      () => bulkJobs(bare, 'requeue', { state: 'dead' }),
      () => pauseQueue(bare, Q),
      () => inspectWorkers(bare),
      () => inspectStats(bare, { clock }),
      () => inspectTasks(bare),
    ]) {
      expect(await code(call)).toBe('X_NOT_IMPLEMENTED');
    }
    expect((await driver.get(id))?.state).toBe('ready');
  });

  it('X_JOB_LEASE_LOST then X_ABORTED: a running job cancelled under its worker, whose body then writes a step', async () => {
    afterCancel.code = undefined;
    afterCancel.reason = undefined;
    const w = await runJobs({
      jobs: [abortRun],
      // the harness closes its driver: the backend stays open for afterAll to close
      driver: { ...driver, close: () => Promise.resolve() },
      clock,
      installFacade: false,
      visibilityTimeoutMs: VT,
    });
    try {
      const { id } = await driver.enqueue(
        request({ name: 'op-errors.abort', queue: 'op-errors-abort', input: { n: seq } }),
      );
      w.worker.signalEnqueued('op-errors-abort');
      await until(async () => (await driver.get(id))?.state === 'running', w.settle);
      expect(await cancelJob(driver, id, 'runaway')).toMatchObject({ id, state: 'cancelled' });
      await w.advance(VT / 3);
      // the worker lets go of the run at the abort; the body's own step write comes after
      await until(() => afterCancel.code !== undefined, w.settle);
      await until(() => w.worker.stats().inFlight === 0, w.settle);
      expect(afterCancel).toEqual({ reason: 'X_JOB_LEASE_LOST', code: 'X_ABORTED' });
      expect(await driver.get(id)).toMatchObject({ state: 'cancelled', lastError: 'runaway' });
      expect(await driver.steps.load(id)).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

/** Waits in real time (the driver's I/O is real) while the frozen clock stands still, until `check` holds. */
async function until(
  check: () => boolean | Promise<boolean>,
  settle: () => Promise<void>,
): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (await check()) return;
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('did not happen within 10 s');
}
