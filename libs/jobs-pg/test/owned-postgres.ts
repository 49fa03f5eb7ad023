import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** How an owned server keeps commits (see `owned-postgres-server.mjs`). */
export type OwnedPostgresMode = 'restartable' | 'crashable';

/** A PostgreSQL server a spec owns, which it can stop or crash and start again (see `owned-postgres-server.mjs`). */
export interface OwnedPostgres {
  /** Its `postgres` database, as the superuser. */
  readonly url: string;
  /** Stops the server: every session is cut, every new connection refused. */
  stop(): Promise<void>;
  /** Kills the server at once (immediate shutdown): what its WAL buffers held and nobody flushed is gone. */
  crash(): Promise<void>;
  /** Starts it again on the same port and data (after a crash, recovery replays the WAL that reached the disk). */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  close(): Promise<void>;
}

const SCRIPT = join(__dirname, 'owned-postgres-server.mjs');

/** Starts a server of its own (a few seconds: initdb, then the postmaster) in a child process. */
export async function startOwnedPostgres(mode: OwnedPostgresMode): Promise<OwnedPostgres> {
  const child = spawn(process.execPath, [SCRIPT, mode], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const waiters: { word: string; resolve: (line: string) => void }[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const take = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const waiter of [...waiters]) {
      const line = output.split('\n').find((l) => l.startsWith(waiter.word));
      if (line === undefined) continue;
      output = output.replace(`${line}\n`, '');
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const next = (word: string): Promise<string> =>
    Promise.race([
      new Promise<string>((resolve) => {
        waiters.push({ word, resolve });
        take(Buffer.alloc(0));
      }),
      exited.then(() => {
        throw new Error(`the ${mode} PostgreSQL exited before ${word}:\n${output}`);
      }),
    ]);
  const send = async (command: string, word: string): Promise<void> => {
    const answered = next(word);
    child.stdin.write(`${command}\n`);
    await answered;
  };
  const url = (await next('URL ')).slice('URL '.length).trim();
  return {
    url,
    stop: () => send('stop', 'STOPPED'),
    crash: () => send('crash', 'CRASHED'),
    start: () => send('start', 'STARTED'),
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
