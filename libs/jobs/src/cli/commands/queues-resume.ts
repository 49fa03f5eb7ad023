import type { Command } from 'commander';
import { resumeQueue } from '../../operator/queues';
import type { CliCommand } from '.';

/** `x queues resume <queue>`: workers claim from it again at their next claim. */
export const queuesResume: CliCommand = {
  group: 'queues',
  register(parent, cli) {
    parent
      .command('resume')
      .description('let workers claim from a paused queue again')
      .argument('<queue>', 'the queue')
      .action(async (queue: string, _flags: unknown, command: Command) => {
        const view = await resumeQueue(await cli.driver(command), queue);
        cli.print(command, view, () => `resumed queue ${view.queue}`);
      });
  },
};
