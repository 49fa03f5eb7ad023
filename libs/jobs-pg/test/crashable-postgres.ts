import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A PostgreSQL server a spec owns and can crash (see `crashable-postgres-server.mjs`). */
export interface CrashablePostgres {
  /** Its `postgres` database, as the superuser. */
  readonly url: string;
  /** Kills the server at once (immediate shutdown): what its WAL buffers held and nobody flushed is gone. */
  crash(): Promise<void>;
  /** Starts it again on the same port and data: crash recovery replays the WAL that reached the disk. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  close(): Promise<void>;
}

/** Starts a server of its own (a few seconds: initdb, then the postmaster) in a child process. */
export async function startCrashablePostgres(): Promise<CrashablePostgres> {
  const child = spawn(process.execPath, [join(__dirname, 'crashable-postgres-server.mjs')], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let wake: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    wake();
  });
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  /** The next line starting with `word` (taken out of the output). */
  const next = async (word: string): Promise<string> => {
    for (;;) {
      const line = output.split('\n').find((l) => l.startsWith(word));
      if (line !== undefined) {
        output = output.replace(`${line}\n`, '');
        return line;
      }
      const more = new Promise<void>((resolve) => (wake = resolve));
      const ended = await Promise.race([more.then(() => false), exited.then(() => true)]);
      if (ended) throw new Error(`the crashable PostgreSQL exited before ${word}:\n${output}`);
    }
  };
  const send = async (command: string, word: string): Promise<void> => {
    child.stdin.write(`${command}\n`);
    await next(word);
  };
  const url = (await next('URL ')).slice('URL '.length).trim();
  return {
    url,
    crash: () => send('crash', 'CRASHED'),
    start: () => send('start', 'STARTED'),
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
