import type { Command } from 'commander';
import { pauseQueue } from '../../operator/queues';
import type { CliCommand } from '.';

/** `x queues pause <queue>`: no worker claims from it from its next claim on; enqueues still land. */
export const queuesPause: CliCommand = {
  group: 'queues',
  register(parent, cli) {
    parent
      .command('pause')
      .description('stop every worker claiming from a queue (enqueues still land)')
      .argument('<queue>', 'the queue')
      .action(async (queue: string, _flags: unknown, command: Command) => {
        const view = await pauseQueue(await cli.driver(command), queue);
        cli.print(command, view, () => `paused queue ${view.queue}`);
      });
  },
};
