import type { Command } from 'commander';
import { inspectTasks } from '../../operator/tasks';
import type { CliCommand } from '.';
import { renderTasks } from '../render-tasks';

/** `x tasks list`: every task declared (`--app` / `--manifest`) or remembered by the backend (a fire, a pause). */
export const tasksList: CliCommand = {
  group: 'tasks',
  register(parent, cli) {
    parent
      .command('list')
      .description('every task: schedule, paused or not, last fire, next run')
      .action(async (_flags: unknown, command: Command) => {
        const declarations = cli.declarations(command);
        const tasks = await inspectTasks(await cli.driver(command), {
          clock: cli.clock,
          ...(declarations === undefined ? {} : { declarations }),
        });
        cli.print(command, tasks, () => renderTasks(tasks));
      });
  },
};
