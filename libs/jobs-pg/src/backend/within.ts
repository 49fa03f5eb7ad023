/** The longest delay a Node timer keeps (2^31-1 ms): a longer one fires after 1 ms. */
export const LONGEST_TIMER_MS = 2_147_483_647;

/**
 * What `work` answered, or that `ms` passed first (its timer cleared either way; a wait past
 * {@link LONGEST_TIMER_MS} waits that long): how the boot bounds each step on a database that may never answer. A
 * rejection of `work` within `ms` is thrown.
 */
export async function within<T>(
  work: Promise<T>,
  ms: number,
): Promise<{ readonly done: true; readonly value: T } | { readonly done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), Math.min(ms, LONGEST_TIMER_MS));
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
