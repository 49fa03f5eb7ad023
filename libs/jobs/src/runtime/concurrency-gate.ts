import { jobCapLeaseKey, jobLeaseKey } from '../declare/concurrency';
import type { AnyJobHandle } from '../declare/handle';
import type { LeaseStore } from '../driver/lease-store';
import { ConcurrencyUnenforceableError } from '../errors/operator-errors';
import { JobSlotLostError } from '../errors/runtime-errors';
import type { Clock, TimerHandle } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import { logError } from '../util/log-format';

/** What the gate decided for one claimed run. */
export type GateVerdict =
  /** The run may start: it holds its fleet slot (or its job declares no cap). `leave()` gives the slot back. */
  | { readonly kind: 'open'; readonly key: string | null; leave(): Promise<void> }
  /** Hand the run back uncounted and claim it again after a poll. */
  | { readonly kind: 'wait'; readonly key: string }
  /** `whenBusy: 'fail'` and other runs hold every slot of the key: refuse the run. */
  | { readonly kind: 'busy'; readonly key: string };

/** The verdict of a job that declares no cap: open, holding nothing. One shared object, so callers can tell it. */
export const OPEN_GATE: GateVerdict = Object.freeze({
  kind: 'open',
  key: null,
  leave: () => Promise.resolve(),
});

/** What the gate needs. */
export interface GateOptions {
  /** The job of the claimed run: its `concurrency` says the cap and the key. */
  readonly handle: AnyJobHandle;
  /** The parsed input (the key is derived from it at every claim). */
  readonly input: unknown;
  /** The claimed run's job id: the holder of the slot it takes. */
  readonly jobId: string;
  /** Where the fleet slots live; undefined refuses a capped job (`ConcurrencyUnenforceableError`). */
  readonly leases: LeaseStore | undefined;
  /** How long a held slot lives without a renewal: the worker's visibility timeout. */
  readonly ttlMs: number;
  /** How often a held slot is renewed: the heartbeat interval. */
  readonly renewEveryMs: number;
  /** The clock the renewal timer runs on. */
  readonly clock: Clock;
  /** Where a lost slot and a failed renewal are reported. */
  readonly logger: JobsLogger;
  /** Told once when a renewal finds the slot taken by another holder. */
  readonly onLost: (error: JobSlotLostError) => void;
}

/**
 * The fleet cap of `job.concurrency`, decided at every claim through lease rows every replica sees: a plain cap
 * counts under `job:<name>`, a keyed one under `job-key:<name>:<key>`. A held slot is renewed on the heartbeat's
 * cadence and reclaimed by TTL when its worker is SIGKILLed. A run is never refused by its own leftovers: under
 * `whenBusy: 'fail'` only OTHER live holders filling the key refuse it; anything else waits one poll.
 */
export async function enterConcurrencyGate(o: GateOptions): Promise<GateVerdict> {
  const c = o.handle.concurrency;
  if (c === null) return OPEN_GATE;
  if (o.leases === undefined) throw new ConcurrencyUnenforceableError([o.handle.name]);
  const leases = o.leases;
  const key = c.keyed
    ? jobLeaseKey(o.handle.name, o.handle.concurrencyKeyOf(o.input as never) ?? '')
    : jobCapLeaseKey(o.handle.name);
  if (!(await leases.acquire(key, o.jobId, c.limit, o.ttlMs))) {
    if (c.whenBusy === 'wait') return { kind: 'wait', key };
    const others = (await leases.holders(key)).filter((h) => h.holder !== o.jobId);
    return others.length >= c.limit ? { kind: 'busy', key } : { kind: 'wait', key };
  }

  let stopped = false;
  let timer: TimerHandle | undefined;
  const renew = (): void => {
    if (stopped) return;
    leases.renew(key, o.jobId, o.ttlMs).then(
      (held) => {
        if (stopped) return;
        if (held) return arm();
        stopped = true;
        o.logger.log('error', 'jobs.worker.slot-lost', { job: o.handle.name, jobId: o.jobId, key });
        o.onLost(new JobSlotLostError(o.jobId, key));
      },
      (error: unknown) => {
        if (stopped) return;
        o.logger.log('warn', 'jobs.worker.slot-renew-failed', {
          job: o.handle.name,
          jobId: o.jobId,
          key,
          error: logError(error),
        });
        arm();
      },
    );
  };
  const arm = (): void => {
    if (!stopped) timer = o.clock.setTimeout(renew, o.renewEveryMs);
  };
  arm();
  return {
    kind: 'open',
    key,
    async leave() {
      // Terminal for the renewal already on the wire too: a run that finished never reports a lost slot.
      stopped = true;
      timer?.cancel();
      await leases.release(key, o.jobId).catch(() => undefined);
    },
  };
}
