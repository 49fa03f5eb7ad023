import type { EnqueueRequest, JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { thrownCode } from '../testing/test-kit';
import { uuidv7 } from '../util/ids';
import { bulkJobs, previewBulk } from './bulk';
import { inspectJob } from './inspect-job';
import { cancelJob, promoteJob, removeJob, retryFromStep } from './job-actions';
import { inspectDeadLetters, listJobs } from './list-jobs';
import { inspectQueues, inspectStats, inspectWorkers, pauseQueue, resumeQueue } from './queues';
import { enqueueRequest } from '../../test/requests';

const Q = 'operator-q';

describe('operator projections over the memory driver', () => {
  let clock: FrozenClock;
  let driver: JobDriver;
  beforeEach(() => {
    clock = frozenClock();
    driver = memoryJobDriver({ clock });
  });
  afterEach(() => driver.close());

  let seq = 0;
  function request(overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
    seq += 1;
    return enqueueRequest({
      id: uuidv7(clock.now() + seq),
      runId: uuidv7(clock.now() + seq),
      name: 'op.job',
      queue: Q,
      input: { n: seq },
      idempotencyKey: `k-${seq}`,
      runAt: clock.now(),
      maxAttempts: 1,
      ...overrides,
    });
  }

  /** `n` rows, each dead-lettered by its one attempt. */
  async function deadRows(n: number): Promise<void> {
    await driver.enqueueMany(Array.from({ length: n }, () => request()));
    const claimed = await driver.claim({
      workerId: 'w',
      slots: [{ queue: Q, limit: n }],
      visibilityTimeoutMs: 30_000,
    });
    for (const row of claimed) {
      await driver.nack(row.id, {
        kind: 'dead',
        workerId: 'w',
        claim: row.claim,
        error: 'X_BOOM: no',
      });
    }
  }

  it('listJobs pages newest first and its cursors lead forward and back', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await driver.enqueue(request())).id);
    const newest = [...ids].reverse();

    const first = await listJobs(driver, { limit: 2 });
    expect(first.jobs.map((j) => j.id)).toEqual(newest.slice(0, 2));
    expect(first.previous).toBeNull();
    const second = await listJobs(driver, { limit: 2, after: first.next! });
    expect(second.jobs.map((j) => j.id)).toEqual(newest.slice(2, 4));
    const last = await listJobs(driver, { limit: 2, after: second.next! });
    expect(last.jobs.map((j) => j.id)).toEqual(newest.slice(4));
    expect(last.next).toBeNull();
    const back = await listJobs(driver, { limit: 2, before: second.previous! });
    expect(back.jobs.map((j) => j.id)).toEqual(newest.slice(0, 2));
    expect(first.jobs[0]).not.toHaveProperty('input');
  });

  it('a page read backwards leads on to older rows, and back to newer ones only while it came back full', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await driver.enqueue(request())).id);
    const newest = [...ids].reverse();
    const first = await listJobs(driver, { limit: 2 });
    const second = await listJobs(driver, { limit: 2, after: first.next! });

    // back from the third-newest row, three at a time: the two newest, and nothing newer than them
    const back = await listJobs(driver, { limit: 3, before: second.previous! });
    expect(back.jobs.map((j) => j.id)).toEqual(newest.slice(0, 2));
    expect(back.previous).toBeNull();
    expect(back.next).not.toBeNull();
    const on = await listJobs(driver, { limit: 3, after: back.next! });
    expect(on.jobs.map((j) => j.id)).toEqual(newest.slice(2, 5));
  });

  it('inspectDeadLetters lists only dead rows', async () => {
    await driver.enqueue(request());
    await deadRows(2);
    const page = await inspectDeadLetters(driver);
    expect(page.jobs).toHaveLength(2);
    expect(page.jobs.every((j) => j.state === 'dead')).toBe(true);
    // a state riding on the filter (a JavaScript caller, a JSON body) does not turn it into another list
    const asked = { queue: Q, state: 'ready' };
    expect((await inspectDeadLetters(driver, asked)).jobs.map((j) => j.state)).toEqual([
      'dead',
      'dead',
    ]);
  });

  it('cancelJob cancels a live row; a finished row or an unknown id is X_JOB_NOT_CANCELLABLE', async () => {
    const { id } = await driver.enqueue(request());
    expect(await cancelJob(driver, id, 'runaway')).toMatchObject({ id, state: 'cancelled' });
    expect(await thrownCode(() => cancelJob(driver, id))).toBe('X_JOB_NOT_CANCELLABLE');
    expect(await thrownCode(() => cancelJob(driver, uuidv7(1)))).toBe('X_JOB_NOT_CANCELLABLE');
  });

  it('removeJob and promoteJob answer the rows they moved, and the driver refusals by code', async () => {
    const delayed = await driver.enqueue(request({ runAt: clock.now() + 60_000 }));
    expect(await promoteJob(driver, delayed.id)).toMatchObject({ id: delayed.id, state: 'ready' });
    expect(await thrownCode(() => promoteJob(driver, delayed.id))).toBe('X_JOB_NOT_PROMOTABLE');
    expect(await removeJob(driver, delayed.id)).toEqual({ removed: delayed.id });
    expect(await thrownCode(() => removeJob(driver, delayed.id))).toBe('X_JOB_NOT_FOUND');
  });

  it('reads a job id given in upper case as the id it is (a UUID is read in either case), on every action', async () => {
    const shout = (id: string) => id.toUpperCase();
    const live = await driver.enqueue(request());
    expect(await inspectJob(driver, shout(live.id))).toMatchObject({ id: live.id });
    expect(await cancelJob(driver, shout(live.id))).toMatchObject({
      id: live.id,
      state: 'cancelled',
    });
    expect(await retryFromStep(driver, shout(live.id))).toMatchObject({
      id: live.id,
      state: 'ready',
    });
    const delayed = await driver.enqueue(request({ runAt: clock.now() + 60_000 }));
    expect(await promoteJob(driver, shout(delayed.id))).toMatchObject({ id: delayed.id });
    expect(await removeJob(driver, shout(delayed.id))).toEqual({ removed: delayed.id });
    expect(await driver.get(delayed.id)).toBeUndefined();
  });

  it('a driver with no introspect: cancel is X_JOB_NOT_CANCELLABLE, the rest X_NOT_IMPLEMENTED', async () => {
    const bare: JobDriver = { ...driver, introspect: undefined };
    const { id } = await driver.enqueue(request());
    expect(await thrownCode(() => cancelJob(bare, id))).toBe('X_JOB_NOT_CANCELLABLE');
    expect(await thrownCode(() => listJobs(bare))).toBe('X_NOT_IMPLEMENTED');
    expect(await thrownCode(() => removeJob(bare, id))).toBe('X_NOT_IMPLEMENTED');
    expect(await thrownCode(() => pauseQueue(bare, Q))).toBe('X_NOT_IMPLEMENTED');
    expect(await thrownCode(() => bulkJobs(bare, 'requeue', { state: 'dead' }))).toBe(
      'X_NOT_IMPLEMENTED',
    );
    expect((await inspectQueues(bare)).map((q) => q.paused)).toEqual([false]);
  });

  it('bulk requeue of 2,500 dead rows takes three calls, and the preview changes nothing', async () => {
    await deadRows(2_500);
    const preview = await previewBulk(driver, 'requeue', { state: 'dead', queue: Q });
    expect(preview).toMatchObject({ matched: 200, more: true });
    expect(preview.sample).toHaveLength(20);
    const answers = [];
    for (let i = 0; i < 3; i += 1)
      answers.push(await bulkJobs(driver, 'requeue', { state: 'dead', queue: Q }));
    expect(answers.map((a) => [a.affected, a.remaining])).toEqual([
      [1_000, 1_500],
      [1_000, 500],
      [500, 0],
    ]);
    expect((await inspectQueues(driver))[0]).toMatchObject({ queue: Q, ready: 2_500, dead: 0 });
  });

  it('bulk promote of a state no row waits in is X_JOB_NOT_PROMOTABLE', async () => {
    expect(await thrownCode(() => bulkJobs(driver, 'promote', { state: 'dead' }))).toBe(
      'X_JOB_NOT_PROMOTABLE',
    );
  });

  it('inspectQueues lists a paused queue even when it holds no rows, and resume clears it', async () => {
    await driver.enqueue(request());
    // no row names it yet: paused by force (a queue nothing knows is refused without it)
    expect(await pauseQueue(driver, 'empty-q', { force: true })).toEqual({
      queue: 'empty-q',
      paused: true,
    });
    const queues = await inspectQueues(driver);
    expect(queues.map((q) => [q.queue, q.paused, q.ready])).toEqual([
      ['empty-q', true, 0],
      [Q, false, 1],
    ]);
    expect(await resumeQueue(driver, 'empty-q')).toEqual({ queue: 'empty-q', paused: false });
    expect((await inspectQueues(driver)).map((q) => q.queue)).toEqual([Q]);
  });

  it('pauses or resumes only a queue something knows: a row, a pause, a declared job — else X_QUEUE_NOT_FOUND', async () => {
    const paused = () => driver.introspect!.pausedQueues();
    await driver.enqueue(request());
    // a misspelt name: refused before anything is paused, with or without declarations naming other queues
    for (const options of [{}, { declarations: { jobs: [{ queue: 'mail' }] } }]) {
      const error = await pauseQueue(driver, `${Q}x`, options).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'X_QUEUE_NOT_FOUND', meta: { queue: `${Q}x` } });
      expect((error as Error).message).toContain(`"${Q}x"`);
      expect(await thrownCode(() => resumeQueue(driver, `${Q}x`, options))).toBe(
        'X_QUEUE_NOT_FOUND',
      );
    }
    expect(await paused()).toEqual([]);
    // a queue a row holds is known; paused, it stays known with no row at all
    await pauseQueue(driver, Q);
    await resumeQueue(driver, Q);
    // a declared job's queue is known before any row names it
    await pauseQueue(driver, 'mail', { declarations: { jobs: [{ queue: 'mail' }] } });
    expect(await paused()).toEqual(['mail']);
    await resumeQueue(driver, 'mail');
    // resumed, with no row and no declarations, it is known no more
    expect(await thrownCode(() => resumeQueue(driver, 'mail'))).toBe('X_QUEUE_NOT_FOUND');
    // a name no backend could hold is X_VALUE_INVALID, whatever force says
    expect(await thrownCode(() => pauseQueue(driver, '', { force: true }))).toBe('X_VALUE_INVALID');
    expect(await paused()).toEqual([]);
  });

  it('inspectQueues flags a paused queue that holds rows, beside its counts', async () => {
    await driver.enqueue(request());
    await pauseQueue(driver, Q);
    expect((await inspectQueues(driver)).map((q) => [q.queue, q.paused, q.ready])).toEqual([
      [Q, true, 1],
    ]);
  });

  it('inspectStats sums over the window it is given, not the default 24 hours', async () => {
    const start = clock.now();
    await deadRows(2);
    await clock.advance(2 * 86_400_000);
    const since = await inspectStats(driver, { clock, sinceMs: start });
    expect(since.sinceMs).toBe(start);
    expect(since.totals).toEqual([expect.objectContaining({ job: 'op.job', dead: 2 })]);
    expect((await inspectStats(driver, { clock })).totals).toEqual([]);
  });

  it('inspectStats sums the counters in the window; inspectWorkers lists live workers', async () => {
    await deadRows(3);
    const stats = await inspectStats(driver, { clock });
    expect(stats.sinceMs).toBe(clock.now() - 86_400_000);
    expect(stats.totals).toEqual([expect.objectContaining({ job: 'op.job', dead: 3 })]);
    expect(await inspectWorkers(driver)).toEqual([]);
  });
});
