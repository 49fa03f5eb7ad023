import type { Command } from 'commander';
import { inspectQueues } from '../../operator/queues';
import type { CliCommand } from '.';
import { renderQueues } from '../render-queues';

/** `x queues list`: every queue with rows or a pause, its counts per state and pause flag. */
export const queuesList: CliCommand = {
  group: 'queues',
  register(parent, cli) {
    parent
      .command('list')
      .description('every queue: counts per state, oldest ready row, paused or not')
      .action(async (_flags: unknown, command: Command) => {
        const queues = await inspectQueues(await cli.driver(command));
        cli.print(command, queues, () => renderQueues(queues));
      });
  },
};
