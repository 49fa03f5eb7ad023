import { MAX_TASK_FIRES, type JobIntrospection, type TaskFireRecord } from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';

const byTask = (a: TaskFireRecord, b: TaskFireRecord): number =>
  a.task < b.task ? -1 : a.task > b.task ? 1 : 0;

/** The task members of the operator surface and the scheduler state: pauses and last fires. */
export type RedisTaskMembers = Pick<
  JobIntrospection,
  'pauseTask' | 'resumeTask' | 'pausedTasks' | 'taskFires' | 'recordTaskFire'
>;

/**
 * Task pauses (P..'sched:paused', a SET) and last fires (P..'sched:fire', task → occurrence|firedAt) of one
 * deployment: the keys the scheduler state fires into and reads, so `x tasks pause` is what a leader sees.
 */
export function redisTaskMembers(ctx: RedisContext): RedisTaskMembers {
  const fires = `${ctx.prefix}sched:fire`;
  const paused = `${ctx.prefix}sched:paused`;
  return {
    async pauseTask(task) {
      await ctx.client.sadd(paused, task);
    },
    async resumeTask(task) {
      await ctx.client.srem(paused, task);
    },
    async pausedTasks() {
      return (await ctx.client.smembers(paused)).sort();
    },
    async taskFires() {
      const all = await ctx.client.hgetall(fires);
      const records = Object.entries(all).map(([task, value]): TaskFireRecord => {
        const [occurrence, firedAt] = value.split('|');
        return { task, occurrenceMs: Number(occurrence), firedAt: Number(firedAt) };
      });
      return records.sort(byTask).slice(0, MAX_TASK_FIRES);
    },
    async recordTaskFire({ task, occurrenceMs }) {
      await ctx.run('taskFireRecord', [task, occurrenceMs]);
    },
  };
}
