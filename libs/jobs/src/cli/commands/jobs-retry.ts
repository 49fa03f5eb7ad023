import type { Command } from 'commander';
import { retryFromStep } from '../../operator/job-actions';
import type { CliCommand } from '.';
import { addBulkFlags, assertOneForm, runBulk, type BulkFlags } from '../bulk-command';
import { CliUsageError } from '../exit-codes';
import { declarationsOption } from '../list-options';
import { renderAction } from '../render-jobs';

/**
 * `x jobs retry <id> [--from-step <step>]`: re-queues one finished job (from a step: that step and every later one are
 * redone). `x jobs retry --state dead [--queue …] --yes`: the bulk form, 1,000 rows per call.
 */
export const jobsRetry: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    addBulkFlags(
      parent
        .command('retry')
        .description(
          're-queue a finished job (done, failed, dead, cancelled), or every one in a set',
        )
        .argument('[id]', 'the job id (omit for the bulk form)')
        .option('--from-step <step>', 'drop this step and every later one, so the run redoes them'),
    ).action(async (id: string | undefined, _flags: unknown, command: Command) => {
      const flags = cli.options<BulkFlags & { fromStep?: string }>(command);
      assertOneForm(command, id, flags);
      if (id === undefined) {
        if (flags.fromStep !== undefined)
          throw new CliUsageError('--from-step applies to one job id, not the bulk form.');
        return runBulk(cli, command, 'requeue', flags);
      }
      const view = await retryFromStep(
        await cli.driver(command),
        id,
        flags.fromStep,
        declarationsOption(cli.declarations(command)),
      );
      cli.print(command, view, () =>
        renderAction(
          flags.fromStep === undefined ? 'requeued' : `requeued from step ${flags.fromStep}`,
          view,
        ),
      );
    });
  },
};
