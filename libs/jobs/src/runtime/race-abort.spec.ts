import { raceAbort } from './deadlines';

/** A signal whose listeners are counted: `live()` is how many are registered now. */
function countedSignal(): { controller: AbortController; live: () => number } {
  const controller = new AbortController();
  const { signal } = controller;
  let live = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
    live += 1;
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
    live -= 1;
    remove(...args);
  };
  return { controller, live: () => live };
}

describe('raceAbort: a step function raced against its signal', () => {
  it('answers a synchronous value as it is, with no listener and no promise', () => {
    const { controller, live } = countedSignal();
    expect(raceAbort(7, controller.signal)).toBe(7);
    expect(live()).toBe(0);
  });

  it('answers a promise’s value and leaves no listener: a body of 300 steps under one signal adds none', async () => {
    const { controller, live } = countedSignal();
    for (let i = 0; i < 300; i++)
      expect(await raceAbort(Promise.resolve(i), controller.signal)).toBe(i);
    await expect(
      raceAbort(Promise.reject(new Error('step failed')), controller.signal),
    ).rejects.toThrow('step failed');
    expect(live()).toBe(0);
  });

  it('rejects with the signal’s reason when it aborts first, and the work’s late rejection stays handled', async () => {
    const { controller } = countedSignal();
    let fail!: (error: Error) => void;
    const work = new Promise<number>((_, reject) => (fail = reject));
    const raced = raceAbort(work, controller.signal);
    controller.abort(new Error('attempt deadline'));
    await expect(raced).rejects.toThrow('attempt deadline');
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    fail(new Error('late'));
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', unhandled);
    expect(unhandled).not.toHaveBeenCalled();
  });

  it('rejects at once under a signal already aborted', async () => {
    const { controller } = countedSignal();
    controller.abort(new Error('already'));
    await expect(
      raceAbort(new Promise<number>(() => undefined), controller.signal),
    ).rejects.toThrow('already');
  });
});
