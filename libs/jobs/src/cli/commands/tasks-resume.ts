import type { Command } from 'commander';
import { resumeTask } from '../../operator/tasks';
import type { CliCommand } from '.';

/** `x tasks resume <task>`: dispatching again; its own `catchUp` decides what it missed. */
export const tasksResume: CliCommand = {
  group: 'tasks',
  register(parent, cli) {
    parent
      .command('resume')
      .description('dispatch a paused task again (its catchUp decides what it missed)')
      .argument('<task>', 'the task name')
      .action(async (task: string, _flags: unknown, command: Command) => {
        const view = await resumeTask(await cli.driver(command), task);
        cli.print(command, view, () => `resumed task ${view.task}`);
      });
  },
};
