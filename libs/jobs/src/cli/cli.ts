import type { Command } from 'commander';
import type { OperatorDeclarations } from '../operator/declarations';
import { systemClock, type Clock } from '../util/clock';
import { openCliBackend, type CliBackend, type ConnectOptions, type PeerLoaders } from './connect';
import { CliUsageError } from './exit-codes';
import { loadDeclarations, type DeclarationOptions } from './load-declarations';
import type { CliStreams } from './output';

/** The options every command takes (declared on the root program). */
export interface GlobalOptions extends ConnectOptions, DeclarationOptions {
  /** Print the projection's JSON instead of a table. */
  readonly json?: boolean;
}

/** What the CLI runs with: the environment, its streams and clock; tests pass their own. */
export interface CliEnvironment {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly streams: CliStreams;
  readonly clock?: Clock;
  readonly loaders?: PeerLoaders;
}

/**
 * What a command reaches through: the backend (opened on first use, closed by the program when the command ends),
 * the app's declarations, and output as JSON or a table. One per program run — no process-global state.
 */
export class Cli {
  #backend: Promise<CliBackend> | undefined;

  constructor(readonly environment: CliEnvironment) {}

  /** The clock "now" and "next" are read on. */
  get clock(): Clock {
    return this.environment.clock ?? systemClock;
  }

  /** The options of `command`, its own and the root program's. */
  options<T extends object>(command: Command): GlobalOptions & T {
    return command.optsWithGlobals<GlobalOptions & T>();
  }

  /** The driver, opened once from `--url` / `DATABASE_URL` / `REDIS_URL`. */
  async driver(command: Command): Promise<CliBackend['driver']> {
    return (await this.backend(command)).driver;
  }

  /** The backend (driver, and backfill ledger where it keeps one), opened once. */
  async backend(command: Command): Promise<CliBackend> {
    const o = this.options(command);
    this.#backend ??= openCliBackend(
      {
        ...(o.url === undefined ? {} : { url: o.url }),
        ...(o.schema === undefined ? {} : { schema: o.schema }),
        ...(o.prefix === undefined ? {} : { prefix: o.prefix }),
      },
      this.environment.env,
      this.environment.loaders,
    );
    return this.#backend;
  }

  /** The app's declarations from `--app` / `--manifest`, or undefined when neither is given. */
  declarations(command: Command): OperatorDeclarations | undefined {
    const o = this.options(command);
    return loadDeclarations(
      {
        ...(o.app === undefined ? {} : { app: o.app }),
        ...(o.manifest === undefined ? {} : { manifest: o.manifest }),
      },
      this.environment.cwd,
    );
  }

  /** The declarations, or a usage error saying how to give them. */
  requireDeclarations(command: Command): OperatorDeclarations {
    const found = this.declarations(command);
    if (found === undefined) {
      throw new CliUsageError(
        `${command.name()} needs the app's declarations: pass --app <module> or --manifest <x.manifest.json>.`,
      );
    }
    return found;
  }

  /** Prints `view` as JSON with `--json`, else the human rendering. */
  print(command: Command, view: unknown, human: () => string): void {
    this.environment.streams.out(
      this.options(command).json ? JSON.stringify(view, null, 2) : human(),
    );
  }

  /** Closes the backend if a command opened it. */
  async close(): Promise<void> {
    const opened = this.#backend;
    this.#backend = undefined;
    if (opened !== undefined) await (await opened.catch(() => undefined))?.close();
  }
}
