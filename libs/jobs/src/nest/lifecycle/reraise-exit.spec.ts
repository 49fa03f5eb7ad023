import { boot, closeBooted } from '../../../test/nest-boot';

/**
 * After a drain a signal started, Nest re-raises the signal; the lifecycle turns that re-raise into a clean exit — but
 * only in a process it held (a long-running role) and only while Nest itself listens for the signal. A web-only
 * process, or an app that never called `enableShutdownHooks`, keeps the signal's own outcome. `SIGUSR2` stands for
 * the signal (one Nest re-raises, and one this test process has no listener of its own for); `process.exit` is
 * spied, so the re-raise is observed without ending the test process.
 */
const SIGNAL = 'SIGUSR2';
/** A signal Nest listens for with its hooks on but never re-raises: the lifecycle must not take it over. */
const NOT_REISSUED = 'SIGTRAP';

/** Stands in for the listener `enableShutdownHooks()` registers: there while the hooks run, removed before the re-raise. */
const nestListener = (): void => undefined;

let exit: jest.SpiedFunction<typeof process.exit>;

beforeEach(() => {
  expect(process.listenerCount(SIGNAL)).toBe(0);
  expect(process.listenerCount(NOT_REISSUED)).toBe(0);
  exit = jest.spyOn(process, 'exit').mockImplementation((): never => undefined as never);
});

afterEach(async () => {
  process.off(SIGNAL, nestListener);
  process.off(NOT_REISSUED, nestListener);
  exit.mockRestore();
  await closeBooted();
});

/** Closes `app` as Nest does on `signal` (its listener there when `listening`), then re-raises it. */
async function closeBySignal(
  close: (signal: string) => Promise<void>,
  listening: boolean,
  signal: typeof SIGNAL | typeof NOT_REISSUED = SIGNAL,
): Promise<void> {
  if (listening) process.on(signal, nestListener);
  await close(signal);
  process.off(signal, nestListener);
  process.emit(signal, signal);
}

describe('JobsLifecycle on the signal Nest re-raises after the drain', () => {
  it('exits cleanly in a worker process whose shutdown Nest ran on that signal', async () => {
    const booted = await boot({}, { roles: ['worker'] });
    await closeBySignal((signal) => booted.app.close(signal), true);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(process.listenerCount(SIGNAL)).toBe(0);
  });

  it('leaves the signal alone in a web-only process: nothing was held', async () => {
    const booted = await boot({}, { roles: ['web'] });
    await closeBySignal((signal) => booted.app.close(signal), true);
    expect(exit).not.toHaveBeenCalled();
    expect(process.listenerCount(SIGNAL)).toBe(0);
  });

  it('stands aside when another listener of the app is still there at the re-raise: that listener decides', async () => {
    const booted = await boot({}, { roles: ['worker'] });
    const decided: string[] = [];
    const appListener = (signal: string): void => void decided.push(signal);
    process.on(SIGNAL, appListener);
    try {
      await closeBySignal((signal) => booted.app.close(signal), true);
    } finally {
      process.off(SIGNAL, appListener);
    }
    expect(decided).toEqual([SIGNAL]);
    expect(exit).not.toHaveBeenCalled();
  });

  it('leaves a signal Nest does not re-raise alone', async () => {
    const booted = await boot({}, { roles: ['worker'] });
    await closeBySignal((signal) => booted.app.close(signal), true, NOT_REISSUED);
    expect(exit).not.toHaveBeenCalled();
    expect(process.listenerCount(NOT_REISSUED)).toBe(0);
  });

  it('leaves the signal alone when Nest does not listen for it (no enableShutdownHooks)', async () => {
    const booted = await boot({}, { roles: ['worker'] });
    await closeBySignal((signal) => booted.app.close(signal), false);
    expect(exit).not.toHaveBeenCalled();
    expect(process.listenerCount(SIGNAL)).toBe(0);
  });
});
