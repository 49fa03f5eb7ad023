import type { CounterTotals } from '../driver/counters';
import type { JobDriver, QueueStats } from '../driver/job-driver';
import type { WorkerInfo } from '../driver/workers';
import { systemClock, type Clock } from '../util/clock';
import { QueueNotFoundError } from '../errors/operator-errors';
import { assertQueueName } from '../values/operator';
import { introspectionOf } from './operator-driver';

/** One queue as operators read it: its counts per state, its live rows per job name, and whether it is paused. */
export interface QueueView extends QueueStats {
  /** A paused queue is claimed by no worker; enqueues still land. */
  readonly paused: boolean;
}

/** A queue's pause state after `pauseQueue` / `resumeQueue`. */
export interface QueuePauseView {
  /** The queue. */
  readonly queue: string;
  /** Whether it is paused now. */
  readonly paused: boolean;
}

/** Queues, workers and per-job counters in one answer: `x jobs stats --json`. */
export interface StatsView {
  /** Every queue's counts. */
  readonly queues: readonly QueueView[];
  /** Per job name, its counter buckets starting at or after `sinceMs`, summed. */
  readonly totals: readonly CounterTotals[];
  /** The window the totals cover (epoch ms). */
  readonly sinceMs: number;
}

const EMPTY_COUNTS = {
  ready: 0,
  delayed: 0,
  running: 0,
  suspended: 0,
  done: 0,
  failed: 0,
  dead: 0,
  cancelled: 0,
  oldestReadyMs: 0,
  names: [],
} as const;

/**
 * Every queue holding rows, and every paused queue even when empty, by name: counts per state, the age of the oldest
 * due row, the live rows per job name and the pause flag. A driver with no `introspect` reports every queue unpaused.
 */
export async function inspectQueues(driver: JobDriver): Promise<readonly QueueView[]> {
  const [stats, paused] = await Promise.all([
    driver.stats(),
    driver.introspect ? driver.introspect.pausedQueues() : Promise.resolve([]),
  ]);
  const views = new Map<string, QueueView>();
  for (const q of stats) views.set(q.queue, { ...q, paused: paused.includes(q.queue) });
  for (const queue of paused) {
    if (!views.has(queue)) views.set(queue, { queue, ...EMPTY_COUNTS, paused: true });
  }
  return [...views.values()].sort((a, b) => (a.queue < b.queue ? -1 : a.queue > b.queue ? 1 : 0));
}

/** Options of {@link pauseQueue} and {@link resumeQueue}. */
export interface QueuePauseOptions {
  /**
   * The app's declarations (an `OperatorDeclarations`, or only its jobs' queues): a queue a declared job is enqueued
   * on is known though no row names it yet.
   */
  readonly declarations?: { readonly jobs: readonly { readonly queue: string }[] };
  /** Pause or resume the name even when nothing knows it (a queue no row names yet). Default false. */
  readonly force?: boolean;
}

/**
 * `X_QUEUE_NOT_FOUND` unless `queue` is known: a declared job's queue, a queue some row holds (any state), a paused
 * queue, or `options.force`. A mistyped name would otherwise be paused (or resumed) in silence while the queue meant
 * goes on as it was.
 */
async function assertKnownQueue(
  driver: JobDriver,
  queue: string,
  options: QueuePauseOptions,
  verb: 'pauseQueue' | 'resumeQueue',
): Promise<void> {
  assertQueueName(verb, queue); // a name no backend could hold is X_VALUE_INVALID, before any read
  introspectionOf(driver, verb); // a driver with no operator surface is X_NOT_IMPLEMENTED, whatever the name
  if (options.force === true) return;
  if (options.declarations?.jobs.some((j) => j.queue === queue)) return;
  if ((await inspectQueues(driver)).some((q) => q.queue === queue)) return;
  throw new QueueNotFoundError(queue);
}

/**
 * Pauses a queue: no worker claims from it from its next claim on; enqueues still land. Idempotent. A name nothing
 * knows is `X_QUEUE_NOT_FOUND` (see {@link QueuePauseOptions}).
 */
export async function pauseQueue(
  driver: JobDriver,
  queue: string,
  options: QueuePauseOptions = {},
): Promise<QueuePauseView> {
  await assertKnownQueue(driver, queue, options, 'pauseQueue');
  await introspectionOf(driver, 'pauseQueue').pauseQueue(queue);
  return { queue, paused: true };
}

/** Resumes a paused queue. Idempotent for a known queue; a name nothing knows is `X_QUEUE_NOT_FOUND`. */
export async function resumeQueue(
  driver: JobDriver,
  queue: string,
  options: QueuePauseOptions = {},
): Promise<QueuePauseView> {
  await assertKnownQueue(driver, queue, options, 'resumeQueue');
  await introspectionOf(driver, 'resumeQueue').resumeQueue(queue);
  return { queue, paused: false };
}

/** Every live worker: id, host, pid, started, queues with their slots, in-flight job ids, last heartbeat. */
export function inspectWorkers(driver: JobDriver): Promise<readonly WorkerInfo[]> {
  return introspectionOf(driver, 'inspectWorkers').workers();
}

/** The window `inspectStats` sums counters over when none is asked for: the last 24 hours. */
export const DEFAULT_STATS_WINDOW_MS = 86_400_000;

/** The queues and the per-job counter totals since `sinceMs` (default: 24 hours before the clock's now). */
export async function inspectStats(
  driver: JobDriver,
  options: { readonly sinceMs?: number; readonly clock?: Clock } = {},
): Promise<StatsView> {
  const sinceMs = options.sinceMs ?? (options.clock ?? systemClock).now() - DEFAULT_STATS_WINDOW_MS;
  const [queues, totals] = await Promise.all([
    inspectQueues(driver),
    introspectionOf(driver, 'inspectStats').counterTotals(sinceMs),
  ]);
  return { queues, totals, sinceMs };
}
