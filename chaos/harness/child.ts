/**
 * The child's end of a {@link ./processes.ChaosProcess}: reads its JSON config from argv, says `ready` over IPC, answers
 * the spec's requests, drains on SIGTERM, and exits when the spec's process goes away (no orphan keeps working).
 */

/** The JSON config the spec passed as the entry's first argument. */
export function chaosChildConfig<T>(): T {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error('chaos child: no config argument (JSON) given');
  return JSON.parse(raw) as T;
}

/** What {@link serveChaosChild} does on the spec's behalf. */
export interface ServeChaosChildOptions {
  /** Fields of the `ready` message besides `type` and `pid`. */
  readonly ready?: Readonly<Record<string, unknown>>;
  /** Answers a request of `type` (the whole request message beside it); the answer's fields go into the reply. */
  readonly answer?: (
    type: string,
    message: Readonly<Record<string, unknown>>,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** On SIGTERM: drain and release; the process then exits 0 (1 if it throws). */
  readonly shutdown: () => Promise<void>;
}

/** Serves the IPC protocol and sends `ready`. Call once the child is serving. */
export function serveChaosChild(options: ServeChaosChildOptions): void {
  process.on('message', (message: { type: string; id: number } & Record<string, unknown>) => {
    void Promise.resolve()
      .then(() => options.answer?.(message.type, message) ?? {})
      .then(
        (fields) => process.send?.({ ...fields, type: `reply:${message.id}` }),
        (error: unknown) => process.send?.({ type: `reply:${message.id}`, error: String(error) }),
      );
  });
  // the spec is gone (a crashed or interrupted jest): do not keep working on its servers
  process.once('disconnect', () => process.exit(2));
  process.once('SIGTERM', () => {
    options.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
  process.send?.({ type: 'ready', pid: process.pid, ...options.ready });
}

/** Runs the child's `main`, printing and exiting 1 on a failure (so the spec sees it die before `ready`). */
export function runChaosChild(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

/**
 * Tells the spec something happened (an IPC message of `type`; the spec reads it with `ChaosProcess.received(type)` or
 * `next(type)`): e.g. a body saying it now holds, so the spec can freeze the process there and nowhere else.
 */
export function tellSpec(type: string, fields: Readonly<Record<string, unknown>> = {}): void {
  process.send?.({ ...fields, type });
}
