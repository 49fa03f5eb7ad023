import { MAX_TASK_FIRES, type JobIntrospection, type TaskFireRecord } from '@ultimat3/jobs';
import { iso, type PgContext } from './pg-context';
import { toMs, type PgTime } from './pg-rows';

interface FireRecordRow {
  readonly task: string;
  readonly last_fired_occurrence: PgTime;
  readonly last_fired_at: PgTime;
}

/**
 * Task pauses and last fires on the operator surface: the same rows `postgresSchedulerState` keeps
 * (`x_task_pauses`, `x_scheduler_state`) through the same statements, so `x tasks pause` is what a leader reads.
 */
export function pgTaskIntrospection(
  ctx: PgContext,
): Pick<
  JobIntrospection,
  'pauseTask' | 'resumeTask' | 'pausedTasks' | 'taskFires' | 'recordTaskFire'
> {
  return {
    async pauseTask(task) {
      await ctx.executor.query(ctx.sql.taskPause, [ctx.now(), task]);
    },
    async resumeTask(task) {
      await ctx.executor.query(ctx.sql.taskResume, [task]);
    },
    async pausedTasks() {
      const { rows } = await ctx.executor.query<{ task: string }>(ctx.sql.tasksPaused, []);
      return rows.map((row) => row.task);
    },
    async taskFires() {
      const { rows } = await ctx.executor.query<FireRecordRow>(ctx.sql.taskFires, [MAX_TASK_FIRES]);
      return rows.map((row): TaskFireRecord => ({
        task: row.task,
        occurrenceMs: toMs(row.last_fired_occurrence),
        firedAt: toMs(row.last_fired_at),
      }));
    },
    async recordTaskFire({ task, occurrenceMs }) {
      await ctx.executor.query(ctx.sql.taskFireRecord, [ctx.now(), task, iso(occurrenceMs)]);
    },
  };
}
