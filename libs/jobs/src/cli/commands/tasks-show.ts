import type { Command } from 'commander';
import { inspectTask } from '../../operator/tasks';
import type { CliCommand } from '.';
import { renderTask } from '../render-tasks';

/** `x tasks show <task>`: one task's schedule, jobs, pause flag, last fire and next run. */
export const tasksShow: CliCommand = {
  group: 'tasks',
  register(parent, cli) {
    parent
      .command('show')
      .description('one task: schedule, jobs, paused or not, last fire, next run')
      .argument('<task>', 'the task name')
      .action(async (name: string, _flags: unknown, command: Command) => {
        const declarations = cli.declarations(command);
        const view = await inspectTask(await cli.driver(command), name, {
          clock: cli.clock,
          ...(declarations === undefined ? {} : { declarations }),
        });
        cli.print(command, view, () => renderTask(view));
      });
  },
};
