import type { Command } from 'commander';
import { cancelJob } from '../../operator/job-actions';
import type { CliCommand } from '.';
import { declarationsOption } from '../list-options';
import { renderAction } from '../render-jobs';

/** `x jobs cancel <id>`: stops a live job; a running one stops at its next heartbeat and cannot settle. */
export const jobsCancel: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    parent
      .command('cancel')
      .description('stop a live job (a running one stops at its next heartbeat)')
      .argument('<id>', 'the job id')
      .option('--reason <text>', 'why, recorded with the cancel')
      .action(async (id: string, _flags: unknown, command: Command) => {
        const { reason } = cli.options<{ reason?: string }>(command);
        const view = await cancelJob(
          await cli.driver(command),
          id,
          reason,
          declarationsOption(cli.declarations(command)),
        );
        cli.print(command, view, () => renderAction('cancelled', view));
      });
  },
};
