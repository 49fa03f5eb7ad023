import type { Command } from 'commander';
import { pauseQueue } from '../../operator/queues';
import type { CliCommand } from '.';
import { pauseOptions, QUEUE_FORCE_HELP } from './pause-options';

/**
 * `x queues pause <queue>`: no worker claims from it from its next claim on; enqueues still land. A name nothing knows
 * is `X_QUEUE_NOT_FOUND` unless `--force`.
 */
export const queuesPause: CliCommand = {
  group: 'queues',
  register(parent, cli) {
    parent
      .command('pause')
      .description('stop every worker claiming from a queue (enqueues still land)')
      .argument('<queue>', 'the queue')
      .option('--force', QUEUE_FORCE_HELP)
      .action(async (queue: string, _flags: unknown, command: Command) => {
        const options = pauseOptions(cli, command);
        const view = await pauseQueue(await cli.driver(command), queue, options);
        cli.print(command, view, () => `paused queue ${view.queue}`);
      });
  },
};
