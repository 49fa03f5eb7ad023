import type { Command } from 'commander';
import { MAX_JOB_PAGE, type JobListFilter } from '../driver/introspection';
import type { JobState } from '../driver/job-row';
import { parseAtMost, parseInstant, parseState } from './parse';
import type { OperatorDeclarations } from '../operator/declarations';
import type { ListJobsOptions } from '../operator/list-jobs';

/** The filter flags `x jobs list` and `x jobs dead` share. */
export interface ListFlags {
  readonly state?: JobState;
  readonly queue?: string;
  readonly name?: string;
  readonly tenant?: string;
  readonly idPrefix?: string;
  readonly createdFrom?: number;
  readonly createdTo?: number;
  readonly limit?: number;
  readonly after?: string;
  readonly before?: string;
}

/** Adds the filter and paging flags (`--state` only when `withState`). */
export function addListFlags(command: Command, withState: boolean): Command {
  if (withState) command.option('--state <state>', 'only rows in this state', parseState);
  return command
    .option('--queue <queue>', 'only rows of this queue')
    .option('--name <job>', 'only rows of this job name')
    .option('--tenant <tenantId>', 'only rows of this tenant')
    .option('--id-prefix <prefix>', 'only rows whose id starts with it (lower-case, as listed)')
    .option(
      '--created-from <instant>',
      'only rows created at or after it (ISO 8601 or epoch ms)',
      parseInstant,
    )
    .option(
      '--created-to <instant>',
      'only rows created before it (ISO 8601 or epoch ms)',
      parseInstant,
    )
    .option(
      '--limit <n>',
      `rows per page (default 100, at most ${MAX_JOB_PAGE})`,
      parseAtMost(MAX_JOB_PAGE),
    )
    .option('--after <cursor>', "the page after this cursor (the previous page's next)")
    .option('--before <cursor>', 'the page before this cursor');
}

/** The flags as a `JobListFilter`. */
export function listFilter(flags: ListFlags): JobListFilter {
  return {
    ...(flags.state === undefined ? {} : { state: flags.state }),
    ...(flags.queue === undefined ? {} : { queue: flags.queue }),
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.tenant === undefined ? {} : { tenantId: flags.tenant }),
    ...(flags.idPrefix === undefined ? {} : { idPrefix: flags.idPrefix }),
    ...(flags.createdFrom === undefined ? {} : { createdFrom: flags.createdFrom }),
    ...(flags.createdTo === undefined ? {} : { createdTo: flags.createdTo }),
    ...(flags.limit === undefined ? {} : { limit: flags.limit }),
    ...(flags.after === undefined ? {} : { after: flags.after }),
    ...(flags.before === undefined ? {} : { before: flags.before }),
  };
}

/** The command line that fetches the page after `cursor`, with the same filters. */
export function nextPageCommand(base: string, flags: ListFlags, cursor: string): string {
  const parts = [base];
  const q = (v: string): string => (/^[\w.:@/-]+$/.test(v) ? v : JSON.stringify(v));
  if (flags.state !== undefined) parts.push(`--state ${flags.state}`);
  if (flags.queue !== undefined) parts.push(`--queue ${q(flags.queue)}`);
  if (flags.name !== undefined) parts.push(`--name ${q(flags.name)}`);
  if (flags.tenant !== undefined) parts.push(`--tenant ${q(flags.tenant)}`);
  if (flags.idPrefix !== undefined) parts.push(`--id-prefix ${q(flags.idPrefix)}`);
  if (flags.createdFrom !== undefined) parts.push(`--created-from ${flags.createdFrom}`);
  if (flags.createdTo !== undefined) parts.push(`--created-to ${flags.createdTo}`);
  if (flags.limit !== undefined) parts.push(`--limit ${flags.limit}`);
  parts.push(`--after ${cursor}`);
  return parts.join(' ');
}

/** The list options of the app's declarations when `--app` or `--manifest` gave them: rows then show scrubbed. */
export const declarationsOption = (
  declarations: OperatorDeclarations | undefined,
): ListJobsOptions => (declarations === undefined ? {} : { declarations });
