import type { Command } from 'commander';
import { inspectStats } from '../../operator/queues';
import type { CliCommand } from '.';
import { span, table } from '../output';
import { parseSpan } from '../parse';
import { renderQueues } from '../render-queues';

/** `x jobs stats`: every queue's counts, and per job name what settled in the window (`--since`, default 24h). */
export const jobsStats: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    parent
      .command('stats')
      .description('queue counts, and per job what settled in the window')
      .option('--since <duration>', 'the counters window, back from now (default 24h)', parseSpan)
      .action(async (_flags: unknown, command: Command) => {
        const { since } = cli.options<{ since?: number }>(command);
        const sinceMs = cli.clock.now() - (since ?? 86_400_000);
        const view = await inspectStats(await cli.driver(command), { sinceMs });
        cli.print(command, view, () =>
          [
            renderQueues(view.queues),
            view.totals.length === 0
              ? 'no settles in the window'
              : table(
                  ['job', 'done', 'retried', 'failed', 'dead', 'cancelled', 'avg run'],
                  view.totals.map((t) => {
                    const runs = t.done + t.retried + t.failed + t.dead;
                    return [
                      t.job,
                      t.done,
                      t.retried,
                      t.failed,
                      t.dead,
                      t.cancelled,
                      runs === 0 ? '' : span(Math.round(t.durationMs / runs)),
                    ];
                  }),
                ),
          ].join('\n'),
        );
      });
  },
};
