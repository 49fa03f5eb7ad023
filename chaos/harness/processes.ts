/**
 * Real child processes for the chaos tier: each runs a TypeScript entry from source through
 * `libs/jobs-pg/test/swc-register.js` with an IPC channel, says `ready` once serving ({@link ./child}), and is then
 * killed, stopped, resumed and restarted with real signals. Output is kept (the last lines of stdout and stderr) and
 * printed when a process dies before it is ready, instead of flooding the test's output.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const REGISTER = join(__dirname, '..', '..', 'libs', 'jobs-pg', 'test', 'swc-register.js');
const TAIL_LINES = 40;

/** What a chaos process runs. */
export interface ChaosProcessOptions {
  /** Absolute path of the entry (`.ts`), e.g. `join(__dirname, 'worker.ts')`. */
  readonly entry: string;
  /** Its argv (after the entry): e.g. one JSON config. */
  readonly args?: readonly string[];
  /** Names it in messages and errors. */
  readonly label: string;
  /** Extra environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** How long `start()` waits for `ready` (default 120 s: a start compiles ~500 files, slow on a loaded machine). */
  readonly readyTimeoutMs?: number;
  /** Echo its output to the test's (default false; `CHAOS_VERBOSE=1` sets it for every process). */
  readonly echo?: boolean;
}

/** A message a chaos child sends over IPC. */
export interface ChaosMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** One child process: started, signalled, restarted; every incarnation keeps the same label. */
export class ChaosProcess {
  #child: ChildProcess | undefined;
  #exited: Promise<number | null> = Promise.resolve(null);
  #tail: string[] = [];
  #requests = 0;
  #received: ChaosMessage[] = [];
  /** Incarnations started so far (a restart adds one). */
  starts = 0;

  constructor(readonly options: ChaosProcessOptions) {}

  get label(): string {
    return this.options.label;
  }

  /** The live incarnation's pid (undefined before the first start). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Whether the current incarnation is running (possibly stopped). */
  get alive(): boolean {
    return (
      this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null
    );
  }

  /** Resolves with the exit code (null when signalled) of the current incarnation. */
  get exited(): Promise<number | null> {
    return this.#exited;
  }

  /** The last lines it printed (stdout and stderr), for a failure message. */
  tail(): string {
    return this.#tail.join('\n');
  }

  /** Spawns a new incarnation and waits for its `ready` message; answers it. */
  async start(): Promise<ChaosMessage> {
    if (this.alive) throw new Error(`chaos process ${this.label} is already running`);
    const echo = this.options.echo ?? process.env.CHAOS_VERBOSE === '1';
    const child = fork(this.options.entry, [...(this.options.args ?? [])], {
      execArgv: ['-r', REGISTER],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, ...this.options.env },
    });
    this.#child = child;
    this.starts++;
    this.#tail = [];
    const keep = (chunk: Buffer): void => {
      const text = chunk.toString();
      if (echo) process.stderr.write(`[${this.label}] ${text}`);
      this.#tail.push(...text.split('\n').filter(Boolean));
      if (this.#tail.length > TAIL_LINES) this.#tail.splice(0, this.#tail.length - TAIL_LINES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    this.#received = [];
    child.on('message', (message: ChaosMessage) => this.#received.push(message));
    return this.#waitFor(child, 'ready', this.options.readyTimeoutMs ?? 120_000);
  }

  /** Sends `signal` to the current incarnation; with SIGKILL (the default) it also waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.#child;
    if (child === undefined || !this.alive) return;
    child.kill(signal);
    if (signal === 'SIGKILL') await this.#exited;
  }

  /** SIGSTOP: the process freezes mid-whatever — timers, sockets, leases — until {@link cont}. */
  stop(): void {
    this.#child?.kill('SIGSTOP');
  }

  /** SIGCONT: the stopped process resumes where it froze. */
  cont(): void {
    this.#child?.kill('SIGCONT');
  }

  /** SIGKILL (if alive) then a fresh start. */
  async restart(): Promise<ChaosMessage> {
    await this.kill('SIGKILL');
    return this.start();
  }

  /**
   * SIGTERM (the child drains, see {@link ./child.serveChaosChild}) and waits for the exit; SIGKILL after `graceMs`.
   * Answers the exit code (null when killed).
   */
  async shutdown(graceMs = 10_000): Promise<number | null> {
    const child = this.#child;
    if (child === undefined || !this.alive) return child?.exitCode ?? null;
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Asks the child (see {@link ./child.serveChaosChild}'s `answer`, which is handed `fields` too) and waits for its
   * reply.
   */
  async request(
    type: string,
    timeoutMs = 10_000,
    fields: Readonly<Record<string, unknown>> = {},
  ): Promise<ChaosMessage> {
    const child = this.#child;
    if (child === undefined || !this.alive)
      throw new Error(`chaos process ${this.label} is not running`);
    const id = ++this.#requests;
    const reply = this.#waitFor(child, `reply:${id}`, timeoutMs);
    child.send({ ...fields, type, id });
    return reply;
  }

  /** Every message of `type` the current incarnation has sent so far (see {@link ./child.tellSpec}). */
  received(type: string): readonly ChaosMessage[] {
    return this.#received.filter((m) => m.type === type);
  }

  /** Resolves with the next message of `type` from the current incarnation (a message sent by the child at will). */
  next(type: string, timeoutMs = 30_000): Promise<ChaosMessage> {
    const child = this.#child;
    if (child === undefined) throw new Error(`chaos process ${this.label} was never started`);
    return this.#waitFor(child, type, timeoutMs);
  }

  #waitFor(child: ChildProcess, type: string, timeoutMs: number): Promise<ChaosMessage> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      const onMessage = (message: ChaosMessage): void => {
        if (message?.type !== type) return;
        done();
        resolve(message);
      };
      const onExit = (code: number | null, signal: string | null): void => {
        done();
        reject(
          new Error(
            `chaos process ${this.label} exited (${signal ?? code}) before ${type}:\n${this.tail()}`,
          ),
        );
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `chaos process ${this.label}: no ${type} within ${timeoutMs} ms:\n${this.tail()}`,
          ),
        );
      }, timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  }
}

/** A group of chaos processes: started together, and all SIGKILLed in a spec's `afterAll` whatever happened. */
export class ChaosFleet {
  readonly processes: ChaosProcess[] = [];

  /** Adds (does not start) a process. */
  add(options: ChaosProcessOptions): ChaosProcess {
    const p = new ChaosProcess(options);
    this.processes.push(p);
    return p;
  }

  /** Starts every process not yet running, in parallel, and waits until each is ready. */
  async startAll(): Promise<void> {
    await Promise.all(this.processes.filter((p) => !p.alive).map((p) => p.start()));
  }

  /** SIGTERM to every live process (each drains), then waits; SIGKILL past `graceMs`. */
  async shutdownAll(graceMs = 10_000): Promise<void> {
    await Promise.all(this.processes.map((p) => p.shutdown(graceMs)));
  }

  /** SIGCONT then SIGKILL to every live process, and waits for the exits. */
  async killAll(): Promise<void> {
    await Promise.all(
      this.processes.map(async (p) => {
        p.cont();
        await p.kill('SIGKILL');
      }),
    );
  }
}
