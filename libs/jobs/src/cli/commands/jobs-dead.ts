import type { Command } from 'commander';
import { inspectDeadLetters } from '../../operator/list-jobs';
import type { CliCommand } from '.';
import { CliExit, EXIT } from '../exit-codes';
import {
  addListFlags,
  declarationsOption,
  listFilter,
  nextPageCommand,
  type ListFlags,
} from '../list-options';
import { renderJobPage } from '../render-jobs';

/** `x jobs dead`: the dead-letter queue, newest first; `--fail-if-any` exits 3 when it is not empty. */
export const jobsDead: CliCommand = {
  group: 'jobs',
  register(parent, cli) {
    addListFlags(parent.command('dead').description('the dead-letter queue, newest first'), false)
      .option('--fail-if-any', 'exit 3 when any dead letter matches (for a cron or a deploy check)')
      .action(async (_flags: unknown, command: Command) => {
        const flags = cli.options<ListFlags & { failIfAny?: boolean }>(command);
        const page = await inspectDeadLetters(
          await cli.driver(command),
          listFilter(flags),
          declarationsOption(cli.declarations(command)),
        );
        cli.print(command, page, () =>
          renderJobPage(page, (c) => nextPageCommand('x jobs dead', flags, c)),
        );
        if (flags.failIfAny === true && page.jobs.length > 0) throw new CliExit(EXIT.deadLetters);
      });
  },
};
