import type { TaskHandle } from '../declare/task';
import type { EnqueueRequest, EnqueueResult } from '../driver/job-driver';
import type { Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import { planCatchUp } from './catch-up';
import { occurrenceRequests } from './occurrence-requests';
import type { SchedulerState } from './scheduler-state';
import { logError, withErrorStack } from '../util/log-format';

/** What a leader holds in memory for one task, so an idle round reads no store and resolves no cron. */
export interface TaskSlot {
  readonly task: TaskHandle;
  /** False until the watermark is read from the state: after a promotion, or after a refused or failed write. */
  loaded: boolean;
  /** The last occurrence handled; undefined for a task never armed. */
  watermarkMs: number | undefined;
  /** The first occurrence after the watermark (Infinity when none is left). */
  nextMs: number;
  /** When the slot is looked at next: its next occurrence, or a pause re-check. */
  wakeMs: number;
}

/** What dispatching needs from the scheduler. */
export interface DispatchContext {
  readonly state: SchedulerState;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly tickIntervalMs: number;
  readonly onEnqueued?: (queue: string) => void;
  /** Whether to make another fire: still leading (renewing on the way when due) and not stopping. */
  readonly mayContinue: () => Promise<boolean>;
}

/** A slot nothing is known about yet. */
export function newSlot(task: TaskHandle): TaskSlot {
  return { task, loaded: false, watermarkMs: undefined, nextMs: Infinity, wakeMs: -Infinity };
}

/** Reads the watermarks of the slots not loaded, in ONE `load`, and resolves each one's next occurrence. */
export async function loadSlots(ctx: DispatchContext, slots: readonly TaskSlot[]): Promise<void> {
  const stale = slots.filter((s) => !s.loaded);
  if (stale.length === 0) return;
  const found = await ctx.state.load(stale.map((s) => s.task.name));
  const now = ctx.clock.now();
  for (const slot of stale) {
    const watermark = found.get(slot.task.name);
    slot.loaded = true;
    slot.watermarkMs = watermark;
    slot.nextMs = watermark === undefined ? now : (slot.task.schedule.next(watermark) ?? Infinity);
    slot.wakeMs = slot.nextMs;
  }
}

/**
 * Handles one due slot: arms a task that has no watermark (now becomes its watermark; nothing fires for the past),
 * otherwise plans its catch-up and fires each planned occurrence as one atomic state step. A refused or failed write
 * unloads the slot, so the next round reads the stored watermark instead of trusting this one.
 */
export async function dispatchTask(
  ctx: DispatchContext,
  slot: TaskSlot,
  nowMs: number,
): Promise<void> {
  const name = slot.task.name;
  try {
    if (slot.watermarkMs === undefined) {
      await arm(ctx, slot, nowMs);
      return;
    }
    const plan = planCatchUp(slot.task, slot.watermarkMs, slot.nextMs, nowMs);
    if (plan.caughtUp) {
      ctx.logger.log('info', 'jobs.scheduler.task.catch-up', {
        task: name,
        policy: slot.task.catchUp,
        watermarkMs: slot.watermarkMs,
        fires: plan.fires.map((f) => f.occurrenceMs),
      });
    }
    for (const [i, fire] of plan.fires.entries()) {
      if (i > 0 && !(await ctx.mayContinue())) return;
      if (!(await fireOne(ctx, slot, fire.occurrenceMs, fire.watermarkMs, nowMs))) return;
    }
    slot.nextMs = plan.nextMs;
    // a run-all walk that stopped at maxCatchUp goes on next tick, not in a busy loop
    slot.wakeMs = plan.nextMs > nowMs ? plan.nextMs : nowMs + ctx.tickIntervalMs;
  } catch (error) {
    ctx.logger.log(
      'warn',
      'jobs.scheduler.task.failed',
      withErrorStack({ task: name, error: logError(error) }, error),
    );
    slot.loaded = false;
    slot.wakeMs = nowMs + ctx.tickIntervalMs;
  }
}

async function arm(ctx: DispatchContext, slot: TaskSlot, nowMs: number): Promise<void> {
  if (!(await ctx.state.skipTo(slot.task.name, nowMs, undefined))) {
    slot.loaded = false; // another leader armed it first
    return;
  }
  slot.watermarkMs = nowMs;
  slot.nextMs = slot.task.schedule.next(nowMs) ?? Infinity;
  slot.wakeMs = slot.nextMs;
  ctx.logger.log('info', 'jobs.scheduler.task.armed', {
    task: slot.task.name,
    watermarkMs: nowMs,
    nextMs: slot.nextMs,
  });
}

/** Fires one occurrence; answers whether the watermark moved (a refusal unloads the slot). */
async function fireOne(
  ctx: DispatchContext,
  slot: TaskSlot,
  occurrenceMs: number,
  watermarkMs: number,
  nowMs: number,
): Promise<boolean> {
  const name = slot.task.name;
  const previous = slot.watermarkMs as number;
  let requests: EnqueueRequest[];
  let refused = 0;
  try {
    const built = await occurrenceRequests(slot.task, occurrenceMs, nowMs);
    requests = built.requests;
    refused = built.refused.length;
    // An entry the job's schema refuses is an authoring bug: retrying this occurrence cannot help, so that entry is
    // reported and the others fire.
    for (const { index, job, error } of built.refused) {
      ctx.logger.log('error', 'jobs.scheduler.task.invalid', {
        task: name,
        occurrenceMs,
        index,
        job,
        error: logError(error),
      });
    }
  } catch (error) {
    // an enqueue() that throws: no entry to fire
    ctx.logger.log(
      'error',
      'jobs.scheduler.task.invalid',
      withErrorStack({ task: name, occurrenceMs, error: logError(error) }, error),
    );
    requests = [];
    refused = 1;
  }
  if (requests.length === 0 && refused > 0) {
    // nothing left to fire: the occurrence is passed and the next one tries again
    return moved(slot, await ctx.state.skipTo(name, watermarkMs, previous), watermarkMs);
  }
  const result = await ctx.state.fire({
    task: name,
    occurrenceMs,
    watermarkMs,
    previousWatermarkMs: previous,
    requests,
  });
  if (!result.fired) {
    ctx.logger.log('warn', 'jobs.scheduler.fire.refused', {
      task: name,
      occurrenceMs,
      previousWatermarkMs: previous,
    });
  } else {
    announce(ctx, requests, result.results);
    ctx.logger.log('debug', 'jobs.scheduler.task.fired', {
      task: name,
      occurrenceMs,
      jobs: result.results.map((r) => r.id),
    });
  }
  return moved(slot, result.fired, watermarkMs);
}

function moved(slot: TaskSlot, ok: boolean, watermarkMs: number): boolean {
  if (ok) slot.watermarkMs = watermarkMs;
  else slot.loaded = false;
  return ok;
}

function announce(
  ctx: DispatchContext,
  requests: readonly EnqueueRequest[],
  results: readonly EnqueueResult[],
): void {
  if (ctx.onEnqueued === undefined) return;
  const queues = new Set<string>();
  results.forEach((r, i) => {
    const queue = requests[i]?.queue;
    if (!r.deduped && queue !== undefined) queues.add(queue);
  });
  for (const queue of queues) ctx.onEnqueued(queue);
}
