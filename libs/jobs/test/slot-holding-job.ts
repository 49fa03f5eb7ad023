import { job } from '../src/declare/job';
import { t } from '../src/schema';

/**
 * A job named `<queue>.noop` on `queue` that records each input's `n` in `ran`, in start order; the run of input 2
 * holds its slot until `finishTwo()` (a no-op before that run started). `reset()` empties `ran`.
 */
export function slotHoldingJob(queue: string) {
  const ran: number[] = [];
  let release: () => void = () => undefined;
  const handle = job({
    name: `${queue}.noop`,
    queue,
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: async ({ input }) => {
      ran.push(input.n);
      if (input.n === 2) await new Promise<void>((resolve) => (release = resolve));
    },
  });
  return {
    handle,
    name: handle.name,
    ran,
    finishTwo: () => release(),
    reset: () => void (ran.length = 0),
  };
}
