/**
 * The burst scenario's floors for `pickup-trace.mjs`: when its last commit was answered, the rate bodies started at,
 * and the CPU every process spent on the burst.
 */
import { availableParallelism } from 'node:os';
import { serverMs } from './cpu-use.mjs';
import { percentile } from './lib.mjs';

/** `x` to two decimals, or a dash for no figure. */
export const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');

/**
 * What bounds a burst's p99: when its last commit was answered, and how fast the worker started bodies between its
 * first and its last (the drain rate it ran at) — the last job starts no earlier than the last commit, and no earlier
 * than the burst's size at that rate after the first body — and the CPU the producer, the worker and the server spent
 * from the first call to the last body (the producer's includes packing its trace for this process): a burst's jobs
 * start no sooner than that CPU spread over the machine's cores.
 */
export function printBurstFloor(produced, bodies, cpu) {
  const first = Math.min(...produced.map((j) => j.call));
  const lastCommit = Math.max(...produced.map((j) => j.back)) - first;
  const starts = bodies.map((b) => b.body - first).sort((a, b) => a - b);
  const rate = ((starts.length - 1) * 1_000) / (starts[starts.length - 1] - starts[0]);
  console.log(
    `    burst: last commit answered +${fmt(lastCommit)} ms; bodies from +${fmt(starts[0])} to ` +
      `+${fmt(starts[starts.length - 1])} ms, ${Math.round(rate)} a second`,
  );
  const all = cpu.producer + cpu.worker + cpu.server;
  console.log(
    `    burst CPU: producer ${fmt(cpu.producer)}, worker ${fmt(cpu.worker)}, server ${fmt(cpu.server)} ms — ` +
      `${fmt((all * 1_000) / produced.length)} µs a job, ${fmt(all / cpus)} ms on ${cpus} cores ` +
      `(the p99 body at +${fmt(percentile(starts, 99))} ms)`,
  );
}

const cpus = availableParallelism();
/** CPU ms so far of `producer`, the worker, and the server's processes (`ctx.cpuServer`, in 10 ms ticks). */
export async function cpuNow(ctx, producer) {
  const asked = [producer, ctx.worker].map((child) => child.ask({ type: 'cpu' }));
  const [p, w] = await Promise.all(asked);
  return { producer: p.us / 1_000, worker: w.us / 1_000, server: serverMs(ctx.cpuServer) };
}
