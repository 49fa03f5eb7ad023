import type { Command } from 'commander';
import { inspectWorkers } from '../../operator/queues';
import type { CliCommand } from '.';
import { table, when } from '../output';

/** `x jobs workers`: every live worker, its slots, in-flight jobs and last heartbeat. */
export const jobsWorkers: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    parent
      .command('workers')
      .description('every live worker: host, queues and slots, in-flight jobs, last heartbeat')
      .action(async (_flags: unknown, command: Command) => {
        const workers = await inspectWorkers(await cli.driver(command));
        cli.print(command, workers, () =>
          workers.length === 0
            ? 'no live workers'
            : table(
                ['id', 'host', 'pid', 'started', 'slots', 'in flight', 'heartbeat'],
                workers.map((w) => [
                  w.id,
                  w.host,
                  w.pid,
                  when(w.startedAt),
                  Object.entries(w.slots)
                    .map(([q, n]) => `${q}:${n}`)
                    .join(' '),
                  w.inFlight.length,
                  when(w.heartbeatAt),
                ]),
              ),
        );
      });
  },
};
