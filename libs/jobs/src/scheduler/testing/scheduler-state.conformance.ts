import type { EnqueueRequest, JobDriver } from '../../driver/job-driver';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { uuidv7 } from '../../util/ids';
import type { SchedulerState } from '../scheduler-state';

/** The state under test over EMPTY storage, and the driver its fires land in (to read the rows back). */
export type MakeSchedulerState = (
  clock: FrozenClock,
) =>
  | Promise<{ readonly state: SchedulerState; readonly driver: JobDriver }>
  | { readonly state: SchedulerState; readonly driver: JobDriver };

/**
 * The behaviour every `SchedulerState` must have, as one suite each implementation's own test calls (the memory state
 * here; the Postgres one beside its driver). Above all: a fire is one compare-and-set step — the watermark, the rows
 * and the fire record move together or not at all.
 */
export function schedulerStateConformance(name: string, make: MakeSchedulerState): void {
  describe(`SchedulerState conformance: ${name}`, () => {
    let clock: FrozenClock;
    let state: SchedulerState;
    let driver: JobDriver;
    let n = 0;
    beforeEach(async () => {
      clock = frozenClock();
      ({ state, driver } = await make(clock));
    });

    const request = (task: string, occurrenceMs: number): EnqueueRequest => ({
      id: uuidv7(clock.now()),
      runId: uuidv7(clock.now()),
      name: 'conformance.job',
      queue: 'conformance-q',
      input: { occurrenceMs, n: ++n },
      idempotencyKey: `task:${task}:${occurrenceMs}:0:k`,
      tenantId: null,
      enqueuedBy: null,
      runAt: clock.now(),
      maxAttempts: 3,
      priority: 0,
      onConflict: 'dedupe',
      concurrencyKey: null,
      traceparent: null,
    });

    it('loads only the tasks that were armed, in one call', async () => {
      expect(await state.skipTo('a', 100, undefined)).toBe(true);
      expect(await state.load(['a', 'b'])).toEqual(new Map([['a', 100]]));
    });

    it('arms a task once: a second arm is refused and moves nothing', async () => {
      expect(await state.skipTo('a', 100, undefined)).toBe(true);
      expect(await state.skipTo('a', 200, undefined)).toBe(false);
      expect(await state.load(['a'])).toEqual(new Map([['a', 100]]));
    });

    it('skips only from the watermark it was planned from', async () => {
      await state.skipTo('a', 100, undefined);
      expect(await state.skipTo('a', 300, 200)).toBe(false);
      expect(await state.skipTo('a', 300, 100)).toBe(true);
      expect(await state.load(['a'])).toEqual(new Map([['a', 300]]));
      expect(await state.taskFires()).toEqual([]);
    });

    it('fires: enqueues every request, moves the watermark and records the fire together', async () => {
      await state.skipTo('a', 100, undefined);
      const requests = [request('a', 1_000), request('a', 1_000)];
      const result = await state.fire({
        task: 'a',
        occurrenceMs: 1_000,
        watermarkMs: 1_000,
        previousWatermarkMs: 100,
        requests: [requests[0]!, { ...requests[1]!, idempotencyKey: 'task:a:1000:1:k' }],
      });
      expect(result.fired).toBe(true);
      expect(result.results.map((r) => [r.id, r.deduped])).toEqual([
        [requests[0]!.id, false],
        [requests[1]!.id, false],
      ]);
      expect(await driver.get(requests[0]!.id)).toMatchObject({ name: 'conformance.job' });
      expect(await state.load(['a'])).toEqual(new Map([['a', 1_000]]));
      expect(await state.taskFires()).toEqual([
        { task: 'a', occurrenceMs: 1_000, firedAt: clock.now() },
      ]);
    });

    it('refuses a fire planned from a watermark that moved: no row, no move, no record', async () => {
      await state.skipTo('a', 100, undefined);
      const r = request('a', 1_000);
      const result = await state.fire({
        task: 'a',
        occurrenceMs: 1_000,
        watermarkMs: 1_000,
        previousWatermarkMs: 50,
        requests: [r],
      });
      expect(result).toEqual({ fired: false, results: [] });
      expect(await driver.get(r.id)).toBeUndefined();
      expect(await state.load(['a'])).toEqual(new Map([['a', 100]]));
      expect(await state.taskFires()).toEqual([]);
    });

    it('lets exactly one of two racing fires of one occurrence through', async () => {
      await state.skipTo('a', 100, undefined);
      const fire = (r: EnqueueRequest) =>
        state.fire({
          task: 'a',
          occurrenceMs: 1_000,
          watermarkMs: 1_000,
          previousWatermarkMs: 100,
          requests: [r],
        });
      const results = await Promise.all([fire(request('a', 1_000)), fire(request('a', 1_000))]);
      expect(results.map((r) => r.fired).sort()).toEqual([false, true]);
      expect((await driver.stats()).reduce((sum, q) => sum + q.ready, 0)).toBe(1);
    });

    it('records the occurrence that fired, while the watermark may pass further (run-once)', async () => {
      await state.skipTo('a', 100, undefined);
      await state.fire({
        task: 'a',
        occurrenceMs: 1_000,
        watermarkMs: 9_000,
        previousWatermarkMs: 100,
        requests: [request('a', 1_000)],
      });
      expect(await state.load(['a'])).toEqual(new Map([['a', 9_000]]));
      expect(await state.taskFires()).toEqual([
        expect.objectContaining({ task: 'a', occurrenceMs: 1_000 }),
      ]);
    });

    it('answers the last fire per task, by task name', async () => {
      for (const task of ['b', 'a']) {
        await state.skipTo(task, 0, undefined);
        for (const at of [1_000, 2_000]) {
          await state.fire({
            task,
            occurrenceMs: at,
            watermarkMs: at,
            previousWatermarkMs: at - 1_000,
            requests: [],
          });
        }
      }
      expect((await state.taskFires()).map((f) => [f.task, f.occurrenceMs])).toEqual([
        ['a', 2_000],
        ['b', 2_000],
      ]);
    });

    it('pauses and resumes tasks', async () => {
      await state.pauseTask('b');
      await state.pauseTask('a');
      await state.pauseTask('a');
      expect(await state.pausedTasks()).toEqual(['a', 'b']);
      await state.resumeTask('a');
      await state.resumeTask('never-paused');
      expect(await state.pausedTasks()).toEqual(['b']);
    });
  });
}
