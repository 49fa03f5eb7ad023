import type { Command } from 'commander';
import { removeJob } from '../../operator/job-actions';
import type { CliCommand } from '.';
import { addBulkFlags, assertOneForm, runBulk, type BulkFlags } from '../bulk-command';

/** `x jobs delete <id>`: deletes one job and its steps (not a running one). The bulk form needs `--yes`. */
export const jobsDelete: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    addBulkFlags(
      parent
        .command('delete')
        .description('delete a job and its steps (never a running one), or every one in a set')
        .argument('[id]', 'the job id (omit for the bulk form)'),
    ).action(async (id: string | undefined, _flags: unknown, command: Command) => {
      const flags = cli.options<BulkFlags>(command);
      assertOneForm(command, id, flags);
      if (id === undefined) return runBulk(cli, command, 'remove', flags);
      const view = await removeJob(await cli.driver(command), id);
      cli.print(command, view, () => `deleted ${view.removed}`);
    });
  },
};
