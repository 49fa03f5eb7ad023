import type { JobsHarness, RunJobsOptions } from '../src/testing/run-jobs';
import { harnessSlot } from './harness-slot';
import { startReceiver, type Receiver } from './webhook-receiver';

/** What the webhook specs share: a receiver per test, the harness the test boots, and a turn of both. */
export interface WebhookSpec {
  /** This test's receiver (a fresh one per test, closed after it). */
  readonly receiver: Receiver;
  /** The harness this test booted last. */
  readonly h: JobsHarness;
  /** Boots `runJobs(options)` for this test; closed after it, before the receiver. */
  runJobs(options: RunJobsOptions): Promise<JobsHarness>;
  /** 5 ms of real time (the receiver answers, sockets close), then the harness's due timers. */
  turn(): Promise<void>;
}

/**
 * The set-up every webhook spec repeats, registered once: a receiver started before each test, the harness the test
 * boots closed after it, then the receiver. Call at the top of the `describe`.
 */
export function webhookSpec(): WebhookSpec {
  const harnesses = harnessSlot({ register: false });
  let receiver: Receiver | undefined;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await harnesses.closeAll();
    await receiver?.close();
    receiver = undefined;
  });
  return {
    get receiver() {
      if (receiver === undefined) throw new Error('webhookSpec: the receiver starts in beforeEach');
      return receiver;
    },
    get h() {
      return harnesses.current;
    },
    runJobs: (options) => harnesses.start(options),
    async turn() {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await harnesses.started?.settle();
    },
  };
}
