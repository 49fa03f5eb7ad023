import type { JobDriver } from '../../driver/job-driver';
import type { JobScheduler } from '../../scheduler/job-scheduler';
import type { OutboxBacklog } from '../../outbox/outbox-store';
import type { OutboxRelay } from '../../outbox/relay/outbox-relay';
import { renderError } from '../../runtime/render-error';
import type { Clock } from '../../util/clock';
import type { WorkerStats } from '../../worker/worker-options';
import type { JobsRole } from '../jobs.options';
import type { QueueStatsCache } from '../metrics/queue-stats.cache';
import type { ResolvedJobsHealthOptions } from './jobs-health.options';

/** One check's verdict and what it saw. */
export type JobsCheck = { readonly status: 'up' | 'down' | 'degraded' } & Readonly<
  Record<string, unknown>
>;

/** What a probe answers: every check it ran by name, and the names of those that are down. */
export interface JobsProbeReport {
  /** The names of the checks that are down. */
  readonly failing: readonly string[];
  /** Every check the probe ran, by name. */
  readonly checks: Readonly<Record<string, JobsCheck>>;
}

/** What the probes read: this process's roles and the hosts running them, each read at the moment of the probe. */
export interface JobsHealthSources {
  readonly driver: JobDriver;
  readonly clock: Clock;
  readonly roles: ReadonlySet<JobsRole>;
  /** Whether the backend has a cross-process wake to prove (Postgres LISTEN); memory has only the in-process one. */
  readonly wakes: boolean;
  readonly stats: QueueStatsCache;
  worker(): WorkerStats | undefined;
  scheduler(): JobScheduler | undefined;
  relay(): OutboxRelay | undefined;
  /** The outbox's cached backlog, or `undefined` in an app without `OutboxModule`. */
  outboxBacklog(): Promise<OutboxBacklog> | undefined;
  /** Whether the role has anything to run (a worker with no jobs, a scheduler with no tasks are idle, not broken). */
  serves(role: 'worker' | 'scheduler'): boolean;
  /** The backfills this process serves, declared against the ledger (informational: never down); absent, none. */
  backfills?(): Promise<JobsCheck | undefined>;
}

const report = (checks: Record<string, JobsCheck>): JobsProbeReport => ({
  failing: Object.keys(checks).filter((name) => checks[name]?.status === 'down'),
  checks,
});

/** An error as a check's `error`: `X_CODE: message`, as the logs render it (the message alone when it has no code). */
const message = (error: unknown): string => renderError(error);

/**
 * Liveness: only what a restart cures. The worker's claim loop has passed within `loopStaleMs`, or every slot is busy
 * (a full worker passes again when a run ends). A database outage keeps the loop passing — its claims fail and it
 * polls on — so it never makes the process dead.
 */
export function probeLive(s: JobsHealthSources, o: ResolvedJobsHealthOptions): JobsProbeReport {
  const stats = s.worker();
  if (stats === undefined) return report({});
  const silentMs = Math.max(0, s.clock.now() - stats.lastPassAt);
  const full = stats.slots > 0 && stats.inFlight >= stats.slots;
  const up = full || silentMs <= o.loopStaleMs;
  return report({
    worker: {
      status: up ? 'up' : 'down',
      lastPassMsAgo: silentMs,
      busySlots: stats.inFlight,
      slots: stats.slots,
      ...(up ? {} : { error: `the claim loop has not passed for ${silentMs} ms` }),
    },
  });
}

/**
 * Readiness: the driver answers its ping within `pingTimeoutMs`; each long-running role this process holds is
 * running (the worker's wake proven, or `degraded` while it only polls; the scheduler's leadership known; the relay
 * running); every declared queue threshold holds.
 */
export async function probeReady(
  s: JobsHealthSources,
  o: ResolvedJobsHealthOptions,
): Promise<JobsProbeReport> {
  const [driver, queues, outbox, backfills] = await Promise.all([
    pingCheck(s, o.pingTimeoutMs),
    queueChecks(s, o),
    outboxCheck(s, o),
    // an unswept backfill is reported, never an outage; a ledger that cannot be read says so the same way
    s.backfills?.().catch((error: unknown): JobsCheck => ({ status: 'up', error: message(error) })),
  ]);
  return report({
    driver,
    ...roleChecks(s),
    ...outbox,
    ...queues,
    ...(backfills === undefined ? {} : { backfills }),
  });
}

async function pingCheck(s: JobsHealthSources, timeoutMs: number): Promise<JobsCheck> {
  const started = s.clock.now();
  let timer: { cancel(): void } | undefined;
  const ping = s.driver.ping?.() ?? s.stats.read().then(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = s.clock.setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([ping, timeout]);
    return { status: 'up', kind: s.driver.kind, ms: s.clock.now() - started };
  } catch (error) {
    // the ping still pending past its timeout must not surface as an unhandled rejection later
    ping.catch(() => undefined);
    return { status: 'down', kind: s.driver.kind, error: message(error) };
  } finally {
    timer?.cancel();
  }
}

function roleChecks(s: JobsHealthSources): Record<string, JobsCheck> {
  const checks: Record<string, JobsCheck> = {};
  if (s.roles.has('worker')) {
    const stats = s.worker();
    checks['worker'] =
      stats === undefined
        ? notRunning(s, 'worker')
        : {
            status: !s.wakes || stats.wakeLive ? 'up' : 'degraded',
            wake: !s.wakes ? 'in-process' : stats.wakeLive ? 'live' : 'polling',
            busySlots: stats.inFlight,
            slots: stats.slots,
          };
  }
  if (s.roles.has('scheduler')) {
    const scheduler = s.scheduler();
    checks['scheduler'] =
      scheduler === undefined || scheduler.status !== 'running'
        ? notRunning(s, 'scheduler')
        : { status: 'up', leading: scheduler.isLeader() };
  }
  if (s.roles.has('relay')) {
    const relay = s.relay();
    checks['relay'] =
      relay === undefined
        ? { status: 'down', error: 'the relay is not running (is OutboxModule imported?)' }
        : { status: 'up', ...relayFields(relay) };
  }
  return checks;
}

function relayFields(relay: OutboxRelay): Record<string, unknown> {
  const stats = relay.stats();
  return { wake: stats.wakeLive ? 'live' : 'polling', publishFailures: stats.publishFailures };
}

function notRunning(s: JobsHealthSources, role: 'worker' | 'scheduler'): JobsCheck {
  // nothing declared for it: the host logged why at boot and stays idle, which is not a fault of this process
  if (!s.serves(role)) return { status: 'up', running: false, reason: 'nothing registered' };
  return { status: 'down', error: `the ${role} is not running (stopped, or shutting down)` };
}

/** The relay's backlog age against `outbox.maxLagMs`: the relay fleet is stuck or behind when it is past it. */
async function outboxCheck(
  s: JobsHealthSources,
  o: ResolvedJobsHealthOptions,
): Promise<Record<string, JobsCheck>> {
  if (o.outbox === false || (o.outbox.where === 'relay' && !s.roles.has('relay'))) return {};
  const { maxLagMs } = o.outbox;
  const read = s.outboxBacklog();
  if (read === undefined)
    return { outbox: { status: 'down', error: 'no outbox store (is OutboxModule imported?)' } };
  let backlog: OutboxBacklog;
  try {
    backlog = await read;
  } catch (error) {
    // unknown, not failing: the store out of reach is the driver check's to name (one outage, one failing check)
    return { outbox: { status: 'degraded', error: `backlog unknown: ${message(error)}` } };
  }
  const lagMs = backlog.oldestAgeMs;
  const up = lagMs <= maxLagMs;
  return {
    outbox: {
      status: up ? 'up' : 'down',
      backlog: backlog.count,
      lagMs,
      ...(up ? {} : { error: `the oldest staged row waited ${lagMs} ms (at most ${maxLagMs})` }),
    },
  };
}

async function queueChecks(
  s: JobsHealthSources,
  o: ResolvedJobsHealthOptions,
): Promise<Record<string, JobsCheck>> {
  const declared = Object.entries(o.queues);
  if (declared.length === 0) return {};
  let stats;
  try {
    stats = await s.stats.read();
  } catch (error) {
    // unknown, not failing: the stats out of reach are the driver check's to name (one outage, one failing check)
    const unknown: JobsCheck = { status: 'degraded', error: `stats unknown: ${message(error)}` };
    return Object.fromEntries(declared.map(([queue]) => [`queue:${queue}`, unknown]));
  }
  const checks: Record<string, JobsCheck> = {};
  for (const [queue, bounds] of declared) {
    const q = stats.find((row) => row.queue === queue);
    const oldestReadyMs = q?.oldestReadyMs ?? 0;
    const dead = q?.dead ?? 0;
    const errors = [
      bounds.maxOldestReadyMs !== undefined && oldestReadyMs > bounds.maxOldestReadyMs
        ? `oldest ready row waited ${oldestReadyMs} ms (at most ${bounds.maxOldestReadyMs})`
        : undefined,
      bounds.maxDead !== undefined && dead > bounds.maxDead
        ? `${dead} dead rows (at most ${bounds.maxDead})`
        : undefined,
    ].filter((e): e is string => e !== undefined);
    checks[`queue:${queue}`] = {
      status: errors.length === 0 ? 'up' : 'down',
      oldestReadyMs,
      dead,
      ...(errors.length === 0 ? {} : { error: errors.join('; ') }),
    };
  }
  return checks;
}
