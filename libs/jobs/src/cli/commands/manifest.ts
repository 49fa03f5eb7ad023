import type { Command } from 'commander';
import type { CliCommand } from '.';
import { table } from '../output';

/**
 * `x manifest --app <module>`: every job and task the app declares, with queue, retry, concurrency and schedule.
 * `--json` prints the `x.manifest.json` other commands read back with `--manifest`. No database needed.
 */
export const manifest: CliCommand = {
  group: null,
  register(parent, cli) {
    parent
      .command('manifest')
      .description(
        'every job and task the app declares (--app <module>, or --manifest to re-read one)',
      )
      .action((_flags: unknown, command: Command) => {
        const view = cli.requireDeclarations(command);
        cli.print(command, view, () =>
          [
            table(
              ['job', 'queue', 'tenant', 'attempts', 'backoff', 'concurrency', 'timeout', 'redact'],
              view.jobs.map((j) => [
                j.name,
                j.queue,
                j.tenant,
                j.retry.attempts,
                j.retry.backoff,
                j.concurrency === null
                  ? ''
                  : `${j.concurrency.keyed ? 'per key ' : ''}${j.concurrency.limit}${j.concurrency.whenBusy === 'fail' ? ', fail when busy' : ''}`,
                j.timeoutMs === null ? '' : `${j.timeoutMs} ms`,
                (j.redact ?? []).join(', '),
              ]),
            ),
            view.tasks.length === 0
              ? 'no tasks'
              : table(
                  ['task', 'cron', 'tz', 'catch-up', 'jobs'],
                  view.tasks.map((t) => [t.name, t.cron, t.tz, t.catchUp, t.jobs.join(', ')]),
                ),
          ].join('\n'),
        );
      });
  },
};
