import type { Command } from 'commander';
import { pauseTask, type TaskPauseOptions } from '../../operator/tasks';
import type { Cli } from '../cli';
import type { CliCommand } from '.';

/** The help of `--force`, shared by `x tasks pause` and `x tasks resume`. */
export const FORCE_HELP =
  'act on a name nothing knows yet (not declared in --app/--manifest, never fired nor paused): a task of a release not yet deployed';

/**
 * What `x tasks pause|resume` pass the operator: the declarations of `--app` / `--manifest`, when given, so a task
 * they declare is known before it ever fired, and `--force`.
 */
export function taskPauseOptions(cli: Cli, command: Command): TaskPauseOptions {
  const declarations = cli.declarations(command);
  const { force } = cli.options<{ force?: boolean }>(command);
  return {
    ...(declarations === undefined ? {} : { declarations }),
    ...(force === true ? { force } : {}),
  };
}

/**
 * `x tasks pause <task>`: the scheduler dispatches none of its occurrences until it is resumed. A name neither the app
 * (`--app` / `--manifest`) nor the backend knows is `X_TASK_NOT_FOUND` unless `--force`.
 */
export const tasksPause: CliCommand = {
  group: 'tasks',
  register(parent, cli) {
    parent
      .command('pause')
      .description('stop dispatching a task')
      .argument('<task>', 'the task name')
      .option('--force', FORCE_HELP)
      .action(async (task: string, _flags: unknown, command: Command) => {
        const options = taskPauseOptions(cli, command);
        const view = await pauseTask(await cli.driver(command), task, options);
        cli.print(command, view, () => `paused task ${view.task}`);
      });
  },
};
