import { job } from '../declare/job';
import type { ClaimOptions, JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { gate } from '../testing/test-kit';

const idle = job({
  name: 'presence-stop.noop',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => 'ran',
});

/**
 * A worker over the memory driver whose claims carrying the registry beat wait on the wire until `answer.open()` —
 * as a claim queued behind a busy pool does: the beat it carries is written when it finally runs.
 */
async function slowCarriedBeats(): Promise<{
  h: JobsHarness;
  answer: ReturnType<typeof gate>;
  held: () => number;
}> {
  const clock = frozenClock();
  const inner = memoryJobDriver({ clock });
  const answer = gate();
  let held = 0;
  const wait = async (options: ClaimOptions): Promise<void> => {
    if (options.presence === undefined) return;
    held++;
    await answer.promise;
  };
  const driver: JobDriver = {
    ...inner,
    claim: async (options) => {
      await wait(options);
      return inner.claim(options);
    },
    claimRescuing: async (options, rescue) => {
      await wait(options);
      return inner.claimRescuing(options, rescue);
    },
  };
  const h = await runJobs({ jobs: [idle], clock, driver, workerId: 'stopped' });
  return { h, answer, held: () => held };
}

describe("a claim carrying the worker's registry beat that answers after the stop", () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('does not leave the stopped worker listed: its row is removed again once the claim answers', async () => {
    const slow = await slowCarriedBeats();
    h = slow.h;
    await h.settle();
    expect((await h.driver.introspect?.workers())?.map((w) => w.id)).toEqual(['stopped']);
    // an idle worker's claims carry its beat once one is due: that claim waits on the wire
    for (let i = 0; i < 30 && slow.held() === 0; i++) await h.advance(1_000);
    expect(slow.held()).toBe(1);

    const stopping = h.worker.stop(h.clock.now() + 1_000);
    await h.advance(1_000);
    await stopping;
    expect(h.logger.named('jobs.worker.stopped')).toHaveLength(1);
    expect(await h.driver.introspect?.workers()).toEqual([]);

    // the claim runs now and writes the beat it carries: the stopped worker must not come back in workers()
    slow.answer.open();
    await h.settle();
    expect(await h.driver.introspect?.workers()).toEqual([]);
    await h.advance(1_000);
    expect(await h.driver.introspect?.workers()).toEqual([]);
    expect(h.logger.named('jobs.worker.beat-failed')).toEqual([]);
  });
});
