import { runJobs, type JobsHarness, type RunJobsOptions } from '../src/testing/run-jobs';

/** The harnesses one spec file starts: each closed after the test that started it. */
export interface HarnessSlot {
  /** `runJobs(options)`, closed after this test (a test may close it sooner: it closes once). */
  start(options: RunJobsOptions): Promise<JobsHarness>;
  /** The harness this test started last (throws before one was started). */
  readonly current: JobsHarness;
  /** The same, or undefined before one was started. */
  readonly started: JobsHarness | undefined;
  /** Closes every harness started since the last call, in order (what the registered `afterEach` runs). */
  closeAll(): Promise<void>;
}

/**
 * Registers an `afterEach` that closes every harness the test started through `start`, in order, and forgets them —
 * what every spec that boots a worker per test (`let h; afterEach(() => h?.close())`) otherwise writes itself. Call it
 * at the top of a spec file or a `describe`. `{ register: false }` leaves the hook to the caller (`closeAll`), for a
 * set-up that must close more after the harnesses in one hook.
 */
export function harnessSlot(options: { readonly register?: boolean } = {}): HarnessSlot {
  let open: JobsHarness[] = [];
  const closeAll = async (): Promise<void> => {
    const closing = open;
    open = [];
    for (const harness of closing) await harness.close();
  };
  if (options.register !== false) afterEach(closeAll);
  return {
    closeAll,
    async start(options) {
      const harness = await runJobs(options);
      let closed: Promise<void> | undefined;
      const tracked: JobsHarness = { ...harness, close: () => (closed ??= harness.close()) };
      open.push(tracked);
      return tracked;
    },
    get current() {
      const harness = open[open.length - 1];
      if (harness === undefined) throw new Error('harnessSlot: no harness started in this test');
      return harness;
    },
    get started() {
      return open[open.length - 1];
    },
  };
}
