import {
  assertEnqueueRequests,
  MAX_TASK_FIRES,
  type SchedulerState,
  type TaskFireRecord,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';
import { enqueueArgs, enqueueAnswer } from './redis-enqueue';

const byTask = (a: TaskFireRecord, b: TaskFireRecord): number =>
  a.task < b.task ? -1 : a.task > b.task ? 1 : 0;

/**
 * The scheduler's durable state on the driver's Redis: per task a watermark and its last fire, and the paused tasks.
 * A fire is ONE script ({@link LUA_SCHEDULER_FIRE}) that compares the watermark, enqueues the occurrence's rows with
 * the dedupe rules of `enqueueMany`, moves the watermark and records the fire — so a crash or a second leader can never
 * fire one occurrence twice. `firedAt` is the server's clock (or the test clock override).
 */
export function redisSchedulerState(ctx: RedisContext): SchedulerState {
  const wm = `${ctx.prefix}sched:wm`;
  const fires = `${ctx.prefix}sched:fire`;
  const paused = `${ctx.prefix}sched:paused`;
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

    async taskFires() {
      const all = await ctx.client.hgetall(fires);
      const records = Object.entries(all).map(([task, value]): TaskFireRecord => {
        const [occurrence, firedAt] = value.split('|');
        return { task, occurrenceMs: Number(occurrence), firedAt: Number(firedAt) };
      });
      return records.sort(byTask).slice(0, MAX_TASK_FIRES);
    },

    async pauseTask(task) {
      await ctx.client.sadd(paused, task);
    },
    async resumeTask(task) {
      await ctx.client.srem(paused, task);
    },
    async pausedTasks() {
      return (await ctx.client.smembers(paused)).sort();
    },
  };
}
