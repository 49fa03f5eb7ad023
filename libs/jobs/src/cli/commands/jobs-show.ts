import type { Command } from 'commander';
import { inspectBackfillOfJob } from '../../backfill/inspect';
import { inspectJob } from '../../operator/inspect-job';
import type { CliCommand } from '.';
import { renderJob } from '../render-jobs';

/** `x jobs show <id>`: the row, the redacted input, the failure, the progress and every step with its duration. */
export const jobsShow: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    parent
      .command('show')
      .description('one job: its row, redacted input, failure, progress and step trace')
      .argument('<id>', 'the job id')
      .option(
        '--outputs',
        "include each step's stored output (may carry secrets the input redaction hides)",
      )
      .action(async (id: string, _flags: unknown, command: Command) => {
        const { outputs } = cli.options<{ outputs?: boolean }>(command);
        const declarations = cli.declarations(command);
        const { driver, backfills } = await cli.backend(command);
        const view = await inspectJob(driver, id, {
          backfill: (row) => inspectBackfillOfJob(backfills, row.id),
          ...(declarations === undefined ? {} : { declarations }),
          outputs: outputs === true,
        });
        cli.print(command, view, () => renderJob(view));
      });
  },
};
