import type { Command } from 'commander';
import { promoteJob } from '../../operator/job-actions';
import type { CliCommand } from '.';
import { addBulkFlags, assertOneForm, runBulk, type BulkFlags } from '../bulk-command';
import { declarationsOption } from '../list-options';
import { renderAction } from '../render-jobs';

/** `x jobs promote <id>`: a job waiting on its run time is due now. The bulk form (`--state delayed`) needs `--yes`. */
export const jobsPromote: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    addBulkFlags(
      parent
        .command('promote')
        .description('make a job waiting on its run time due now, or every one in a set')
        .argument('[id]', 'the job id (omit for the bulk form)'),
    ).action(async (id: string | undefined, _flags: unknown, command: Command) => {
      const flags = cli.options<BulkFlags>(command);
      assertOneForm(command, id, flags);
      if (id === undefined) return runBulk(cli, command, 'promote', flags);
      const view = await promoteJob(
        await cli.driver(command),
        id,
        declarationsOption(cli.declarations(command)),
      );
      cli.print(command, view, () => renderAction('promoted', view));
    });
  },
};
