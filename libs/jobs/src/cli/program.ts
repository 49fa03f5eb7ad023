import { Command, CommanderError, Option } from 'commander';
import { errorCodeOf } from '../errors/jobs-error';
import { Cli, type CliEnvironment } from './cli';
import { COMMANDS, GROUPS } from './commands';
import { CliExit, CliUsageError, EXIT, type ExitCode } from './exit-codes';
import type { CliStreams } from './output';

/** The `x` program: global options, one group command per area, each command registered from its own file. */
export function buildProgram(cli: Cli, options: { readonly json?: boolean } = {}): Command {
  const { streams } = cli.environment;
  // with --json a usage mistake is reported once, as JSON, by runX: commander's own text is held back
  const writeErr = options.json === true ? () => undefined : (s: string) => streams.err(s);
  const program = new Command('x')
    .description('Operate @ultimat3/jobs: jobs, queues, tasks and the manifest.')
    .option('--url <url>', 'postgres://… or redis://… (default: DATABASE_URL, else REDIS_URL)')
    .option('--schema <name>', 'PostgreSQL schema of the jobs tables (default: search_path)')
    .option('--prefix <prefix>', 'Redis deployment prefix (default: jobs)')
    .option('--app <module>', "a built module exporting the app's job and task handles")
    .option('--manifest <file>', 'an x.manifest.json written by x manifest --app … --json')
    .addOption(new Option('--json', "print the projection's JSON instead of a table"))
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => streams.out(s), writeErr })
    .configureHelp({ showGlobalOptions: true });
  const groups = new Map<string, Command>();
  for (const [name, description] of Object.entries(GROUPS)) {
    groups.set(name, program.command(name).description(description));
  }
  for (const command of COMMANDS) {
    const parent = command.group === null ? program : groups.get(command.group);
    if (parent === undefined)
      throw new Error(`x: command group "${command.group}" is not in GROUPS.`);
    command.register(parent, cli);
  }
  return program;
}

/**
 * Runs `x` with `argv` (the arguments after the program name) and answers its exit code: 0 ok, 1 failed (the
 * `X_…` code, message and fix printed on stderr — as JSON with `--json`), 2 usage, 3 dead letters found with
 * `--fail-if-any`. The backend a command opened is closed before it answers.
 */
export async function runX(
  argv: readonly string[],
  environment: CliEnvironment,
): Promise<ExitCode> {
  const cli = new Cli(environment);
  // read before parsing: a usage mistake can stop the parse before --json is stored
  const json = argv.includes('--json');
  const program = buildProgram(cli, { json });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return report(error, environment.streams, json);
  } finally {
    await cli.close();
  }
}

function report(error: unknown, streams: CliStreams, json: boolean): ExitCode {
  if (error instanceof CliExit) return error.exitCode;
  if (error instanceof CommanderError) {
    // asked-for help and the version are answers, not failures; otherwise commander printed its message (not with --json)
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
      return EXIT.ok;
    if (json) {
      streams.err(
        JSON.stringify({
          error: { code: 'usage', message: error.message.replace(/^error: /, '') },
        }),
      );
    }
    return EXIT.usage;
  }
  if (error instanceof CliUsageError) {
    streams.err(
      json
        ? JSON.stringify({ error: { code: 'usage', message: error.message } })
        : `error: ${error.message}\n(run with --help for usage)`,
    );
    return EXIT.usage;
  }
  const code = errorCodeOf(error) ?? null;
  const fix = (error as { fix?: unknown }).fix;
  const raw = error instanceof Error ? error.message : String(error);
  const message =
    typeof fix === 'string' && raw.endsWith(` Fix: ${fix}`)
      ? raw.slice(0, -` Fix: ${fix}`.length)
      : raw;
  if (json) {
    streams.err(
      JSON.stringify({ error: { code, message, fix: typeof fix === 'string' ? fix : null } }),
    );
  } else {
    streams.err(`error${code === null ? '' : ` ${code}`}: ${message}`);
    if (typeof fix === 'string') streams.err(`fix: ${fix}`);
  }
  return EXIT.failed;
}
