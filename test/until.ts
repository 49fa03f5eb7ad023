/**
 * Real-time waits for tests that watch another process or a real server, where no clock can be driven. A test that
 * owns its clock advances it instead.
 */

/** Polls `check` every 10 ms until it holds; throws once `ms` have passed. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Polls `read` every 20 ms until it answers a value, and answers it; throws naming `what` once `ms` have passed. */
export async function untilValue<T>(
  what: string,
  read: () => Promise<T | undefined>,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * What `pending` settled with within `ms` of real time: the value it resolved to, the error it rejected with, or
 * `'hung'` — for a test whose subject must settle in bounded time (a boot meeting a silent server, a stop).
 */
export async function settledWithin<T>(pending: Promise<T>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([pending.catch((error: unknown) => error), hung]);
  } finally {
    clearTimeout(timer);
  }
}
