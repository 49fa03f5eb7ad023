import { qualify } from '../schema';
import { SQL_SCHEDULER_ARM } from './sql/scheduler-arm.sql';
import { SQL_SCHEDULER_FIRE } from './sql/scheduler-fire.sql';
import { SQL_SCHEDULER_FIRES } from './sql/scheduler-fires.sql';
import { SQL_SCHEDULER_LOAD } from './sql/scheduler-load.sql';
import { SQL_SCHEDULER_SKIP } from './sql/scheduler-skip.sql';
import { SQL_TASK_PAUSE } from './sql/task-pause.sql';
import { SQL_TASK_RESUME } from './sql/task-resume.sql';
import { SQL_TASKS_PAUSED } from './sql/tasks-paused.sql';

const STATEMENTS = {
  arm: SQL_SCHEDULER_ARM,
  fire: SQL_SCHEDULER_FIRE,
  fires: SQL_SCHEDULER_FIRES,
  load: SQL_SCHEDULER_LOAD,
  skip: SQL_SCHEDULER_SKIP,
  pause: SQL_TASK_PAUSE,
  resume: SQL_TASK_RESUME,
  paused: SQL_TASKS_PAUSED,
} as const;

/** Every statement the scheduler state runs, by name, with its tables placed in the state's schema. */
export type SchedulerStatements = { readonly [K in keyof typeof STATEMENTS]: string };

/** The scheduler statements for `schema` (default: unqualified, found through `search_path`), built once. */
export function schedulerStatementsFor(schema?: string): SchedulerStatements {
  const entries = Object.entries(STATEMENTS).map(([key, sql]) => [key, qualify(sql, schema)]);
  return Object.fromEntries(entries) as SchedulerStatements;
}
