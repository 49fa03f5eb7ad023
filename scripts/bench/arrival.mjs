/**
 * Pickup under steady arrival, the way jobs arrive in production: another process enqueues while the worker is busy
 * or just idle, at 20/s, at 500/s from four processes, and 1,000 at once. Each wait runs from just before `enqueue()`
 * in the producer to the body's start in the worker (one worker process, concurrency 10, the README defaults with the
 * wake); then the worker process's memory. The same scenarios `npm run bench:peers` runs for every peer.
 */
import { freshDatabase, percentile, report } from './lib.mjs';
import { pickupScenarios } from './peers/scenarios.mjs';

const mb = (bytes) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** `p50 … ms` with p95, p99 and max beside it. */
export function latencyLine(label, xs, late) {
  report(
    label,
    `p50 ${percentile(xs, 50).toFixed(2)} ms`,
    `p95 ${percentile(xs, 95).toFixed(2)}, p99 ${percentile(xs, 99).toFixed(2)}, max ${percentile(xs, 100).toFixed(2)} ms; n=${xs.length}` +
      (late > 5 ? `; producers ran up to ${late.toFixed(0)} ms late` : ''),
  );
}

export async function benchArrival(serverUrl) {
  console.log(
    '\nPickup under arrival: one worker process (concurrency 10, the wake), producers in other processes',
  );
  const db = await freshDatabase(serverUrl);
  try {
    const result = await pickupScenarios('ours', { url: db.url });
    latencyLine(
      '200 jobs 50 ms apart, one producer: call → body',
      result.steady,
      result.late.steady,
    );
    latencyLine(
      '2,000 jobs at 500/s, four producers: call → body',
      result.rate500,
      result.late.rate500,
    );
    latencyLine('1,000 enqueue() calls at once: call → body', result.burst, result.late.burst);
    report(
      'worker process memory after the three',
      `${mb(result.memory.rss)} RSS`,
      `heap used ${mb(result.memory.heapUsed)}`,
    );
  } finally {
    await db.drop();
  }
}
