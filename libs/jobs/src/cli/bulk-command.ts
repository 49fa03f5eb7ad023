import type { Command } from 'commander';
import type { JobState } from '../driver/job-row';
import { bulkJobs, previewBulk, type BulkAction, type BulkFilter } from '../operator/bulk';
import type { Cli } from './cli';
import { CliUsageError } from './exit-codes';
import { declarationsOption } from './list-options';
import { parseState } from './parse';
import { renderBulk, renderPreview } from './render-jobs';

/** The flags of a bulk form. */
export interface BulkFlags {
  readonly state?: JobState;
  readonly queue?: string;
  readonly name?: string;
  readonly tenant?: string;
  readonly yes?: boolean;
}

/** Adds the bulk form's flags: the set (`--state` and narrowing filters) and `--yes`. */
export function addBulkFlags(command: Command): Command {
  return command
    .option(
      '--state <state>',
      'bulk form: every row in this state (with the filters below)',
      parseState,
    )
    .option('--queue <queue>', 'bulk form: only rows of this queue')
    .option('--name <job>', 'bulk form: only rows of this job name')
    .option('--tenant <tenantId>', 'bulk form: only rows of this tenant')
    .option('--yes', 'bulk form: do it (without it, print what it would do and change nothing)');
}

/** Whether any bulk flag was given. */
export function isBulk(flags: BulkFlags): boolean {
  return (
    flags.state !== undefined ||
    flags.queue !== undefined ||
    flags.name !== undefined ||
    flags.tenant !== undefined
  );
}

/**
 * Runs the bulk form: a usage error without `--state` or beside an id; without `--yes` a dry run that lists what it
 * would cover; with it ONE bounded call answering `{ affected, remaining }`.
 */
export async function runBulk(
  cli: Cli,
  command: Command,
  action: BulkAction,
  flags: BulkFlags,
): Promise<void> {
  if (flags.state === undefined) {
    throw new CliUsageError(
      `the bulk form of ${command.name()} needs --state (with --queue / --name / --tenant to narrow it).`,
    );
  }
  const filter: BulkFilter = {
    state: flags.state,
    ...(flags.queue === undefined ? {} : { queue: flags.queue }),
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.tenant === undefined ? {} : { tenantId: flags.tenant }),
  };
  const driver = await cli.driver(command);
  if (flags.yes !== true) {
    const preview = await previewBulk(
      driver,
      action,
      filter,
      declarationsOption(cli.declarations(command)),
    );
    cli.print(command, { dryRun: true, ...preview }, () => renderPreview(preview));
    return;
  }
  const view = await bulkJobs(driver, action, filter);
  cli.print(command, view, () => renderBulk(view));
}

/** A usage error for an id given beside bulk flags, or neither given. */
export function assertOneForm(command: Command, id: string | undefined, flags: BulkFlags): void {
  if (id !== undefined && isBulk(flags)) {
    throw new CliUsageError(`${command.name()} takes an id OR bulk flags (--state …), not both.`);
  }
  if (id === undefined && !isBulk(flags)) {
    throw new CliUsageError(`${command.name()} needs a job id, or --state (the bulk form).`);
  }
}
