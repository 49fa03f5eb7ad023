import type { Command } from 'commander';
import { pauseTask } from '../../operator/tasks';
import type { CliCommand } from '.';

/** `x tasks pause <task>`: the scheduler dispatches none of its occurrences until it is resumed. */
export const tasksPause: CliCommand = {
  group: 'tasks',
  register(parent, cli) {
    parent
      .command('pause')
      .description('stop dispatching a task')
      .argument('<task>', 'the task name')
      .action(async (task: string, _flags: unknown, command: Command) => {
        const view = await pauseTask(await cli.driver(command), task);
        cli.print(command, view, () => `paused task ${view.task}`);
      });
  },
};
