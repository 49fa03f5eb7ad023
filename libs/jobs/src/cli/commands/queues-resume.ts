import type { Command } from 'commander';
import { resumeQueue } from '../../operator/queues';
import type { CliCommand } from '.';
import { pauseOptions, QUEUE_FORCE_HELP } from './pause-options';

/**
 * `x queues resume <queue>`: workers claim from it again at their next claim. A name nothing knows is
 * `X_QUEUE_NOT_FOUND` unless `--force`.
 */
export const queuesResume: CliCommand = {
  group: 'queues',
  register(parent, cli) {
    parent
      .command('resume')
      .description('let workers claim from a paused queue again')
      .argument('<queue>', 'the queue')
      .option('--force', QUEUE_FORCE_HELP)
      .action(async (queue: string, _flags: unknown, command: Command) => {
        const options = pauseOptions(cli, command);
        const view = await resumeQueue(await cli.driver(command), queue, options);
        cli.print(command, view, () => `resumed queue ${view.queue}`);
      });
  },
};
