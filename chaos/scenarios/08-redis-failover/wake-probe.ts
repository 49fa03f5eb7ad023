/**
 * Whether idle workers are still woken after a fault: once the fleet has idled long enough for its claim waits to have
 * grown past the bound, one job at a time is enqueued and timed until done. A live wake starts it within tens of ms; a
 * worker that only polls (or whose wake believes itself live on a dead subscription, skipping its claims) takes seconds.
 */
import type { JobDriver } from '@ultimat3/jobs';
import type { ChaosProcess } from '../../harness/processes';
import { faultJobRequests } from '../03-database-faults/db-faults-job';

/** What the probes saw. */
export interface WakeProbeResult {
  /** Probes not done within the bound. */
  readonly slow: number;
  /** Each probe's enqueue-to-done time (ms; the cap when it never finished). */
  readonly latencies: readonly number[];
  /** Workers whose wake was not proven live when asked. */
  readonly notLive: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Idles `idleMs`, then enqueues `count` probe jobs one at a time and times each. */
export async function probeWake(options: {
  readonly driver: JobDriver;
  readonly workers: readonly ChaosProcess[];
  readonly count: number;
  readonly idleMs: number;
  readonly boundMs: number;
  /** How long one probe is waited for at most (its latency is then this cap). */
  readonly capMs: number;
}): Promise<WakeProbeResult> {
  const { driver, count, boundMs, capMs } = options;
  const request = faultJobRequests(count);
  const latencies: number[] = [];
  await sleep(options.idleMs);
  let notLive = 0;
  for (const w of options.workers) {
    const reply = await w.request('stats');
    if ((reply.stats as { wakeLive?: boolean } | undefined)?.wakeLive !== true) notLive++;
  }
  for (let i = 0; i < count; i++) {
    // numbered apart from the stream's jobs: its own idempotency key
    const probe = { ...request(i), input: { n: 1_000_000 + i }, idempotencyKey: `probe:${i}` };
    const sent = Date.now();
    await driver.enqueue(probe);
    for (;;) {
      const row = await driver.get(probe.id);
      if (row?.state === 'done' || Date.now() - sent >= capMs) break;
      await sleep(10);
    }
    latencies.push(Math.min(Date.now() - sent, capMs));
    await sleep(options.idleMs / 2);
  }
  return { slow: latencies.filter((ms) => ms > boundMs).length, latencies, notLive };
}
