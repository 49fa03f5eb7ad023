import { memorySchedulerState } from '../../scheduler/memory-scheduler-state';
import { MAX_TASK_FIRES } from '../../scheduler/scheduler-state';
import type { Harness } from './harness';

/** Task pauses and fires on the operator surface, and a scheduler state over the driver reading the same set. */
export function introspectionTasksSuite(h: Harness): void {
  describe('introspect task pauses and fires', () => {
    it('pauses and resumes a task idempotently; pausedTasks answers them by name', async () => {
      const introspect = h.introspect();
      expect(await introspect.pausedTasks()).toEqual([]);
      await introspect.pauseTask('tasks.nightly');
      await introspect.pauseTask('tasks.hourly');
      await introspect.pauseTask('tasks.nightly');
      expect(await introspect.pausedTasks()).toEqual(['tasks.hourly', 'tasks.nightly']);
      await introspect.resumeTask('tasks.nightly');
      await introspect.resumeTask('tasks.never-paused');
      expect(await introspect.pausedTasks()).toEqual(['tasks.hourly']);
    });

    it('taskFires answers the last recorded fire per task, by name, stamped on the driver clock', async () => {
      const introspect = h.introspect();
      expect(await introspect.taskFires()).toEqual([]);
      const t0 = h.clock().now();
      await introspect.recordTaskFire({ task: 'tasks.nightly', occurrenceMs: t0 - 60_000 });
      await h.clock().advance(1_000);
      await introspect.recordTaskFire({ task: 'tasks.hourly', occurrenceMs: t0 });
      await introspect.recordTaskFire({ task: 'tasks.nightly', occurrenceMs: t0 });
      expect(await introspect.taskFires()).toEqual([
        { task: 'tasks.hourly', occurrenceMs: t0, firedAt: t0 + 1_000 },
        { task: 'tasks.nightly', occurrenceMs: t0, firedAt: t0 + 1_000 },
      ]);
    });

    it(`answers at most MAX_TASK_FIRES (${MAX_TASK_FIRES}) fires, the first by task name`, async () => {
      const tasks = Array.from({ length: MAX_TASK_FIRES + 1 }, (_, i) => `tasks.t${1_000_000 + i}`);
      for (const task of tasks) await h.introspect().recordTaskFire({ task, occurrenceMs: 0 });
      const fires = await h.introspect().taskFires();
      expect(fires).toHaveLength(MAX_TASK_FIRES);
      expect(fires.map((f) => f.task)).toEqual(tasks.slice(0, MAX_TASK_FIRES));
    }, 60_000);

    it('a scheduler state over the driver fires into its taskFires and reads its task pauses', async () => {
      const state = memorySchedulerState({ driver: h.driver(), clock: h.clock() });
      const occurrenceMs = h.clock().now();
      expect(await state.skipTo('tasks.tick', occurrenceMs - 60_000, undefined)).toBe(true);
      expect(await h.introspect().taskFires()).toEqual([]); // arming is not a fire
      const request = h.request({ idempotencyKey: `tick:${occurrenceMs}` });
      const fired = await state.fire({
        task: 'tasks.tick',
        occurrenceMs,
        watermarkMs: occurrenceMs,
        previousWatermarkMs: occurrenceMs - 60_000,
        requests: [request],
      });
      expect(fired.fired).toBe(true);
      expect(await h.introspect().taskFires()).toEqual([
        { task: 'tasks.tick', occurrenceMs, firedAt: h.clock().now() },
      ]);
      expect((await h.driver().get(request.id))?.state).toBe('ready');
      await h.introspect().pauseTask('tasks.tick');
      expect(await state.pausedTasks()).toEqual(['tasks.tick']);
      await state.resumeTask('tasks.tick');
      expect(await h.introspect().pausedTasks()).toEqual([]);
    });

    it('refuses what is not a task name, and a fire at no storable time, with X_VALUE_INVALID', async () => {
      const introspect = h.introspect();
      for (const task of ['', 'bad task', 't\u0000', 't'.repeat(129), 42]) {
        const code = { code: 'X_VALUE_INVALID' };
        await expect(introspect.pauseTask(task as string)).rejects.toMatchObject(code);
        await expect(introspect.resumeTask(task as string)).rejects.toMatchObject(code);
        await expect(
          introspect.recordTaskFire({ task: task as string, occurrenceMs: 0 }),
        ).rejects.toMatchObject(code);
      }
      await expect(
        introspect.recordTaskFire({ task: 'tasks.x', occurrenceMs: 1.5 }),
      ).rejects.toMatchObject({
        code: 'X_VALUE_INVALID',
        meta: { field: 'recordTaskFire(occurrenceMs)' },
      });
      expect(await introspect.pausedTasks()).toEqual([]);
      expect(await introspect.taskFires()).toEqual([]);
    });
  });
}
