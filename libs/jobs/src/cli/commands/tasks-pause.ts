import type { Command } from 'commander';
import { pauseTask } from '../../operator/tasks';
import type { CliCommand } from '.';
import { pauseOptions, TASK_FORCE_HELP } from './pause-options';

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
      .option('--force', TASK_FORCE_HELP)
      .action(async (task: string, _flags: unknown, command: Command) => {
        const options = pauseOptions(cli, command);
        const view = await pauseTask(await cli.driver(command), task, options);
        cli.print(command, view, () => `paused task ${view.task}`);
      });
  },
};
