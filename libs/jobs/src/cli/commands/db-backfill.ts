import type { Command } from 'commander';
import { defaultBackfillEnvironment } from '../../backfill/backfill-runtime';
import { inspectBackfills, type BackfillPassView } from '../../backfill/inspect';
import { MAX_BACKFILL_LIST_LIMIT } from '../../backfill/ledger-order';
import type { BackfillLedger, BackfillStatus } from '../../backfill/ledger';
import { countBackfill } from '../../backfill/count';
import {
  assertNothingPending,
  gateBackfill,
  ledgerRunsOf,
  pendingBackfills,
  type PendingBackfillsReport,
} from '../../backfill/pending';
import { backfillHandleNamed, registeredBackfills } from '../../backfill/registry';
import { setJobsFacade } from '../../declare/ambient';
import type { BackfillDescriptor } from '../../declare/backfill-definition';
import { directJobsFacade } from '../../declare/direct-facade';
import { BackfillPendingError } from '../../errors/backfill-errors';
import { errorCodeOf, JobsError } from '../../errors/jobs-error';
import type { Cli } from '../cli';
import { appliedMigrationsFrom } from '../migrations-source';
import { CliUsageError } from '../exit-codes';
import { parseAtMost } from '../parse';
import type { CliCommand } from '.';

interface BackfillFlags {
  readonly pending?: boolean;
  readonly list?: boolean;
  readonly all?: boolean;
  readonly write?: boolean;
  readonly force?: boolean;
  readonly environment?: string;
  readonly name?: string;
  readonly status?: string;
  readonly limit?: number;
  readonly migrationsUrl?: string;
  readonly migrationsTable?: string;
}

const STATUSES: readonly BackfillStatus[] = ['running', 'completed', 'failed'];

/** What `x db backfill` reads off the backend `x` opened, beside its driver. */
interface BackfillCliBackend {
  readonly backfills?: BackfillLedger;
  /** The PostgreSQL backend's executor: the app's migrations table is read through it. */
  readonly executor?: {
    query<R>(text: string, values: readonly unknown[]): Promise<{ readonly rows: R[] }>;
  };
}

const opened = async (cli: Cli, command: Command): Promise<BackfillCliBackend> =>
  (await cli.backend(command)) as BackfillCliBackend;

/** The ledger of the backend `x` opened: PostgreSQL and memory carry one; without it there is nothing to read. */
async function ledgerOf(cli: Cli, command: Command): Promise<BackfillLedger> {
  const ledger = (await opened(cli, command)).backfills;
  if (ledger === undefined) {
    throw new JobsError('X_NOT_IMPLEMENTED', 'This backend keeps no backfill ledger.', {
      fix: 'Point x at the PostgreSQL database the jobs live in (--url postgres://…).',
    });
  }
  return ledger;
}

/** The backfills the app (`--app` / `--manifest`) declares, among those this process has seen declared. */
function declaredBackfills(cli: Cli, command: Command): BackfillDescriptor[] {
  const names = new Set(cli.requireDeclarations(command).jobs.map((j) => j.name));
  return registeredBackfills().filter((d) => names.has(d.name));
}

/** Applied migrations, read only when the gated backfills declare `requires` (see {@link appliedMigrationsFrom}). */
async function appliedMigrations(
  cli: Cli,
  command: Command,
  flags: BackfillFlags,
  gated: readonly BackfillDescriptor[],
): Promise<string[]> {
  return appliedMigrationsFrom({
    needed: gated.some((d) => d.requires !== null),
    migrationsUrl: flags.migrationsUrl,
    migrationsTable: flags.migrationsTable,
    executor: (await opened(cli, command)).executor,
    env: cli.environment.env,
  });
}

function renderPending(report: PendingBackfillsReport): string {
  const lines = report.rows.map(
    (r) =>
      `${r.state.padEnd(10)} ${r.name}${r.checksumMoved ? '  (checksum moved since the completed pass)' : ''}`,
  );
  for (const name of report.orphaned)
    lines.push(`orphaned   ${name}  (in the ledger, declared nowhere)`);
  return [`environment ${report.environment}`, ...lines].join('\n');
}

function renderList(rows: readonly BackfillPassView[]): string {
  if (rows.length === 0) return 'no backfill passes';
  return rows
    .map(
      (r) =>
        `${r.status.padEnd(10)} ${r.name}  rows ${r.rows}  batches ${r.batches}  started ${r.startedAt}` +
        (r.completedAt === null ? '' : `  completed ${r.completedAt}`),
    )
    .join('\n');
}

/** Gates one name and, with --write, enqueues it through a facade over the backend's driver. */
async function runOne(
  cli: Cli,
  command: Command,
  name: string,
  flags: BackfillFlags,
  environment: string,
  declarations: readonly BackfillDescriptor[],
): Promise<{ name: string; enqueued: boolean; jobId: string | null; remaining?: number | null }> {
  const ledger = await ledgerOf(cli, command);
  gateBackfill({
    name,
    environment,
    declarations,
    runs: await ledgerRunsOf(
      ledger,
      declarations.filter((d) => d.name === name),
    ),
    appliedMigrations: await appliedMigrations(
      cli,
      command,
      flags,
      declarations.filter((d) => d.name === name),
    ),
    force: flags.force === true,
  });
  if (flags.write !== true) {
    // the declared count, when there is one: how many rows the sweep would touch
    const remaining = await countBackfill(name, new AbortController().signal);
    return { name, enqueued: false, jobId: null, remaining };
  }
  const handle = backfillHandleNamed(name);
  if (handle === undefined)
    throw new CliUsageError(`backfill ${name} is in the manifest only: pass --app`);
  const uninstall = setJobsFacade(
    directJobsFacade({ driver: await cli.driver(command), clock: cli.clock }),
  );
  try {
    const { id } = await handle.enqueue(flags.force === true ? { force: true } : {});
    return { name, enqueued: true, jobId: id };
  } finally {
    uninstall();
  }
}

/** `--list`: the ledger through the one projection, filtered by --name / --status / --limit. */
async function listLedger(cli: Cli, command: Command, flags: BackfillFlags): Promise<void> {
  if (flags.status !== undefined && !STATUSES.includes(flags.status as BackfillStatus)) {
    throw new CliUsageError(`--status must be one of ${STATUSES.join(', ')}`);
  }
  const rows = await inspectBackfills(await ledgerOf(cli, command), {
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.status === undefined ? {} : { status: flags.status as BackfillStatus }),
    ...(flags.limit === undefined ? {} : { limit: flags.limit }),
  });
  cli.print(command, rows, () => renderList(rows));
}

/** `--all`: every pending name gated (and with --write enqueued) on its own; a refusal fails the command at the end. */
async function runAll(
  cli: Cli,
  command: Command,
  flags: BackfillFlags,
  environment: string,
  declarations: readonly BackfillDescriptor[],
): Promise<void> {
  const runs = await ledgerRunsOf(await ledgerOf(cli, command), declarations);
  const outcomes: { name: string; enqueued: boolean; code: string | null }[] = [];
  for (const todo of pendingBackfills({ declarations, runs, environment }).pending) {
    try {
      const done = await runOne(cli, command, todo, flags, environment, declarations);
      outcomes.push({ name: todo, enqueued: done.enqueued, code: null });
    } catch (error) {
      outcomes.push({ name: todo, enqueued: false, code: errorCodeOf(error) ?? 'error' });
    }
  }
  cli.print(
    command,
    outcomes,
    () =>
      outcomes
        .map((o) => `${o.code ?? (o.enqueued ? 'enqueued' : 'dry run')}  ${o.name}`)
        .join('\n') || 'nothing pending',
  );
  const refused = outcomes.filter((o) => o.code !== null).map((o) => o.name);
  if (refused.length > 0) throw new BackfillPendingError(refused);
}

/**
 * `x db backfill --pending | --list | <name> | --all [--write] [--force]`: what is declared and not swept (exit 1,
 * `X_BACKFILL_PENDING`, when anything is), the ledger, and a gated enqueue — a DRY RUN unless `--write`, which only
 * enqueues: the workers sweep. `--all` isolates per name and goes on past a refusal, failing at the end.
 */
export const dbBackfill: CliCommand = {
  group: 'db',
  register(parent, cli) {
    parent
      .command('backfill')
      .description('list, check and enqueue backfills (dry run unless --write)')
      .argument('[name]', 'the backfill to run')
      .option('--pending', 'declared and not swept; exits 1 when anything is')
      .option('--list', 'the ledger, newest pass first')
      .option('--all', 'every pending backfill, each on its own')
      .option('--write', 'enqueue (never implied)')
      .option('--force', 'sweep a completed backfill again, into a new ledger row')
      .option(
        '--environment <env>',
        'the environment checked against environments (default NODE_ENV)',
      )
      .option('--name <name>', 'with --list: one backfill')
      .option('--status <status>', 'with --list: running, completed or failed')
      .option(
        '--limit <n>',
        `with --list: at most n rows (default 100, at most ${MAX_BACKFILL_LIST_LIMIT})`,
        parseAtMost(MAX_BACKFILL_LIST_LIMIT),
      )
      .option(
        '--migrations-url <url>',
        "the app's PostgreSQL database, where requires is checked (default: the one x opened; on Redis, DATABASE_URL)",
      )
      .option(
        '--migrations-table <table>',
        "the app's TypeORM migrations table, schema-qualified when its DataSource sets schema (default migrations)",
      )
      .action(async (name: string | undefined, _flags: unknown, command: Command) => {
        const flags = cli.options<BackfillFlags>(command);
        const modes = [flags.pending, flags.list, flags.all, name !== undefined].filter(Boolean);
        if (modes.length !== 1) {
          throw new CliUsageError(
            'x db backfill takes exactly one of --pending, --list, --all or a <name>',
          );
        }
        if (flags.list === true) return listLedger(cli, command, flags);
        const environment = flags.environment ?? defaultBackfillEnvironment(cli.environment.env);
        const declarations = declaredBackfills(cli, command);
        if (flags.pending === true) {
          const runs = await ledgerRunsOf(await ledgerOf(cli, command), declarations);
          const report = pendingBackfills({ declarations, runs, environment });
          cli.print(command, report, () => renderPending(report));
          return assertNothingPending(report);
        }
        if (name !== undefined) {
          const done = await runOne(cli, command, name, flags, environment, declarations);
          return cli.print(command, done, () =>
            done.enqueued
              ? `enqueued ${name} (job ${done.jobId})`
              : `dry run: ${name} would be enqueued (pass --write)${done.remaining == null ? '' : `; count() matches ${done.remaining} rows`}`,
          );
        }
        return runAll(cli, command, flags, environment, declarations);
      });
  },
};
