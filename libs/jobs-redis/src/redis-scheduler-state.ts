import { assertEnqueueRequests, type SchedulerState } from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { enqueueArgs, enqueueAnswer } from './redis-enqueue';
import { redisTaskMembers } from './redis-tasks';

/**
 * The scheduler's durable state on the driver's Redis: per task a watermark and its last fire, and the paused tasks.
 * A fire is ONE script ({@link LUA_SCHEDULER_FIRE}) that compares the watermark, enqueues the occurrence's rows with
 * the dedupe rules of `enqueueMany`, moves the watermark and records the fire — so a crash or a second leader can never
 * fire one occurrence twice. `firedAt` is the server's clock (or the test clock override).
 */
export function redisSchedulerState(ctx: RedisContext): SchedulerState {
  const wm = `${ctx.prefix}sched:wm`;
  const tasks = redisTaskMembers(ctx);
  return {
    async load(tasks) {
      const found = new Map<string, number>();
      if (tasks.length === 0) return found;
      const values = await ctx.client.hmget(wm, ...tasks);
      tasks.forEach((task, i) => {
        const v = values[i];
        if (v !== null && v !== undefined) found.set(task, Number(v));
      });
      return found;
    },

    async fire(request) {
      assertEnqueueRequests(request.requests);
      const reply = await ctx.run('schedulerFire', [
        request.task,
        request.occurrenceMs,
        request.watermarkMs,
        request.previousWatermarkMs,
        ...enqueueArgs(request.requests),
      ]);
      if (Array.isArray(reply) && reply[0] === 'refused') return { fired: false, results: [] };
      return { fired: true, results: enqueueAnswer(request.requests, reply) };
    },

    async skipTo(task, watermarkMs, previousWatermarkMs) {
      const planned = previousWatermarkMs === undefined ? '' : previousWatermarkMs;
      return (await ctx.run('schedulerSkip', [task, watermarkMs, planned])) === 1;
    },

    taskFires: () => tasks.taskFires(),
    pauseTask: (task) => tasks.pauseTask(task),
    resumeTask: (task) => tasks.resumeTask(task),
    pausedTasks: () => tasks.pausedTasks(),
  };
}
