import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** A PostgreSQL server a test owns, which it can restart (see `restartable-postgres-server.mjs`). */
export interface RestartablePostgres {
  /** Its `postgres` database, as the superuser. */
  readonly url: string;
  /** Stops the server: every session is cut, every new connection refused. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  close(): Promise<void>;
}

const SCRIPT = join(__dirname, 'restartable-postgres-server.mjs');

/** Starts a server of its own (a few seconds: initdb, then the postmaster) in a child process. */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const child: ChildProcess = spawn(process.execPath, [SCRIPT], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
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
  child.stdout?.on('data', take);
  child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const next = (word: string): Promise<string> =>
    Promise.race([
      new Promise<string>((resolve) => {
        waiters.push({ word, resolve });
        take(Buffer.alloc(0));
      }),
      exited.then(() => {
        throw new Error(`the test PostgreSQL exited before ${word}:\n${output}`);
      }),
    ]);
  const send = async (command: string, word: string): Promise<void> => {
    const answered = next(word);
    child.stdin?.write(`${command}\n`);
    await answered;
  };
  const url = (await next('URL ')).slice('URL '.length).trim();
  return {
    url,
    stop: () => send('stop', 'STOPPED'),
    start: () => send('start', 'STARTED'),
    async close() {
      child.stdin?.end();
      await exited;
    },
  };
}
