import type { TaskView } from '../operator/tasks';
import { record, table, when } from './output';

/** Tasks as a table: schedule, pause flag, last fire, next run. */
export function renderTasks(tasks: readonly TaskView[]): string {
  if (tasks.length === 0) return 'no tasks (pass --app or --manifest to list the declared ones)';
  return table(
    ['task', 'cron', 'tz', 'paused', 'last fire', 'next', 'jobs'],
    tasks.map((t) => [
      t.name,
      t.cron ?? '(undeclared)',
      t.tz,
      t.paused ? 'yes' : '',
      when(t.lastFire?.occurrenceMs),
      when(t.next),
      t.jobs.join(', '),
    ]),
  );
}

/** One task. */
export function renderTask(t: TaskView): string {
  return record([
    ['task', t.name],
    ['declared', t.declared ? 'yes' : 'no (pass --app or --manifest)'],
    ['cron', t.cron],
    ['tz', t.tz],
    ['catch-up', t.catchUp],
    ['jobs', t.jobs.join(', ')],
    ['paused', t.paused ? 'yes' : 'no'],
    [
      'last fire',
      t.lastFire === null
        ? 'never'
        : `${when(t.lastFire.occurrenceMs)} (landed ${when(t.lastFire.firedAt)})`,
    ],
    ['next', when(t.next)],
  ]);
}
