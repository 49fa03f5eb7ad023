import type { Command } from 'commander';
import { listJobs } from '../../operator/list-jobs';
import type { CliCommand } from '.';
import { CliUsageError } from '../exit-codes';
import {
  addListFlags,
  declarationsOption,
  listFilter,
  nextPageCommand,
  type ListFlags,
} from '../list-options';
import { renderJobPage } from '../render-jobs';

/** `x jobs list`: one page of jobs, newest first, with every filter; `--after <next>` follows the page. */
export const jobsList: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    addListFlags(parent.command('list').description('one page of jobs, newest first'), true).action(
      async (_flags: ListFlags, command: Command) => {
        const flags = cli.options<ListFlags>(command);
        if (flags.after !== undefined && flags.before !== undefined) {
          throw new CliUsageError('--after and --before exclude each other: pass one cursor.');
        }
        const page = await listJobs(
          await cli.driver(command),
          listFilter(flags),
          declarationsOption(cli.declarations(command)),
        );
        cli.print(command, page, () =>
          renderJobPage(page, (c) => nextPageCommand('x jobs list', flags, c)),
        );
      },
    );
  },
};
