import type { Command } from 'commander';
import { resumeTask } from '../../operator/tasks';
import type { CliCommand } from '.';
import { pauseOptions, TASK_FORCE_HELP } from './pause-options';

/**
 * `x tasks resume <task>`: dispatching again; its own `catchUp` decides what it missed. A name nothing knows is
 * `X_TASK_NOT_FOUND` unless `--force`, as for `x tasks pause`.
 */
export const tasksResume: CliCommand = {
  group: 'tasks',
  register(parent, cli) {
    parent
      .command('resume')
      .description('dispatch a paused task again (its catchUp decides what it missed)')
      .argument('<task>', 'the task name')
      .option('--force', TASK_FORCE_HELP)
      .action(async (task: string, _flags: unknown, command: Command) => {
        const options = pauseOptions(cli, command);
        const view = await resumeTask(await cli.driver(command), task, options);
        cli.print(command, view, () => `resumed task ${view.task}`);
      });
  },
};
