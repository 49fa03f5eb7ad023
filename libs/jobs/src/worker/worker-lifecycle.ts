import { InvariantError } from '../errors/runtime-errors';
import { drainWork } from './drain-work';
import { resolveSlots, servedNames } from './slots';
import type { WorkerParts } from './worker-parts';

/**
 * Starts a worker's claiming (`JobWorker.start`): serves its queues, builds the parts that need them, then arms
 * its timers and sends its first pass. Refuses a second start (`X_INVARIANT`).
 */
export async function startWorker(w: WorkerParts): Promise<void> {
  const { id, clock, logger } = w.settings;
  if (w.state !== 'new') throw new InvariantError(`jobWorker ${id} was already started.`);
  serveQueues(w);
  // the registry row: its due beats ride the claims (an idle worker's presence costs no statement of its own)
  const presence = w.buildPresence();
  w.presence = presence;
  w.planner = w.buildPlanner(presence);
  const unserved = w.buildUnserved();
  w.unserved = unserved;
  w.state = 'running';
  w.timers.start();
  w.stats.lastPassAt = clock.now();
  logger.log('info', 'jobs.worker.started', { workerId: id, queues: [...w.ledger.queues()] });
  w.loop.kick();
  unserved.start();
  presence?.start();
}

/** Resolves the queues the worker serves with their slots and job names; warns of those no registered job names. */
function serveQueues(w: WorkerParts): void {
  const { driver, registry } = w.options;
  const resolved = resolveSlots(registry, w.options.queues, w.options.concurrency);
  registry.assertBound([...resolved.slots.keys()]);
  w.served = servedNames(registry, resolved.slots, driver.leases !== undefined);
  for (const q of resolved.unregistered)
    w.settings.logger.log('warn', 'jobs.worker.queue-unregistered', {
      workerId: w.settings.id,
      queue: q,
    });
  w.ledger.serve(resolved.slots);
  w.stats.slots = w.ledger.total();
}

/**
 * A worker's drain begins (`JobWorker.beginDrain`): it claims no more and aborts its runs with `signal` — once, and
 * also while a manual stop (which aborts nothing) waits for those runs.
 */
export function beginWorkerDrain(w: WorkerParts, signal: string): void {
  if (w.state === 'stopped' || w.work.draining) return;
  if (w.state !== 'draining') stopClaiming(w);
  w.handBacks.release(w.held.takeAll());
  w.work.drain(signal);
  w.settings.logger.log('info', 'jobs.worker.draining', {
    workerId: w.settings.id,
    signal,
    inFlight: w.runs.size,
  });
}

/** Stops a worker (`JobWorker.stop`): it claims no more and waits for its work under way, up to `deadlineAt`. */
export async function stopWorker(w: WorkerParts, deadlineAt: number | undefined): Promise<void> {
  const { id, clock, logger } = w.settings;
  if (w.state === 'stopped') return;
  if (w.state !== 'draining') stopClaiming(w);
  w.handBacks.release(w.held.takeAll());
  await drainWork(
    { passes: w.loop.passes, handingBack: w.handBacks.pending, runs: w.runs },
    deadlineAt,
    clock,
    logger,
    id,
  );
  // two stops at once each wait for the work up to their own deadline, then for the one close
  w.closing ??= closeWorker(w);
  await w.closing;
}

/** Closes a drained (or abandoned) worker once: what it holds goes back, its watches stop, it says so. */
async function closeWorker(w: WorkerParts): Promise<void> {
  // what a claim still on the wire past the deadline answers goes back: a stopped worker starts nothing
  w.work.close();
  await w.unserved?.stop();
  await w.presence?.stop();
  w.state = 'stopped';
  w.settings.logger.log('info', 'jobs.worker.stopped', { workerId: w.settings.id });
}

/** Stops claiming: no pass, no timer, the rows held handed back. */
function stopClaiming(w: WorkerParts): void {
  w.state = 'draining';
  w.timers.stop();
  void w.unserved?.stop();
}
