import type { Command } from 'commander';
import type { Cli } from '../cli';
import { dbBackfill } from './db-backfill';
import { jobsCancel } from './jobs-cancel';
import { jobsDead } from './jobs-dead';
import { jobsDelete } from './jobs-delete';
import { jobsList } from './jobs-list';
import { jobsPromote } from './jobs-promote';
import { jobsRetry } from './jobs-retry';
import { jobsShow } from './jobs-show';
import { jobsStats } from './jobs-stats';
import { jobsWorkers } from './jobs-workers';
import { manifest } from './manifest';
import { mcp } from './mcp';
import { queuesList } from './queues-list';
import { queuesPause } from './queues-pause';
import { queuesResume } from './queues-resume';
import { tasksList } from './tasks-list';
import { tasksNext } from './tasks-next';
import { tasksPause } from './tasks-pause';
import { tasksResume } from './tasks-resume';
import { tasksShow } from './tasks-show';

/** The group commands (`x jobs …`), each with its one-line description. A new group is one line here. */
export const GROUPS = {
  jobs: 'list, inspect and move job rows',
  queues: 'list, pause and resume queues',
  tasks: 'list, inspect, pause and resume recurring tasks',
  db: 'database: backfills',
} as const satisfies Readonly<Record<string, string>>;

/**
 * One command of `x`: the group it belongs to (null: top level) and how it adds itself — its own file, one
 * `register(parent, cli)` adding `parent.command(…)` with its options and an async action that reads through `cli`
 * and prints with `cli.print`. Errors are thrown, never printed: the program maps them to the exit code.
 */
export interface CliCommand {
  readonly group: keyof typeof GROUPS | null;
  register(parent: Command, cli: Cli): void;
}

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  jobsList,
  jobsShow,
  jobsRetry,
  jobsCancel,
  jobsDelete,
  jobsPromote,
  jobsDead,
  jobsStats,
  jobsWorkers,
  queuesList,
  queuesPause,
  queuesResume,
  tasksList,
  tasksShow,
  tasksPause,
  tasksResume,
  tasksNext,
  manifest,
  dbBackfill,
  mcp,
];
