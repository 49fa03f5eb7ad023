import { systemClock, type Clock } from '../../util/clock';
import type { JobIntrospection } from '../introspection';
import type { ClaimAndRescueResult, ClaimOptions, JobDriver, RescueRequest } from '../job-driver';
import type { LeaseStore } from '../lease-store';
import { assertCarriedBeat } from '../workers';
import { claimRows } from './memory-claim';
import { rescueRows } from './memory-rescue';
import { enqueueBatch, enqueueOne } from './memory-enqueue';
import { memoryIntrospection } from './memory-introspect';
import { memoryWorkerRegistry } from './memory-counters';
import { memoryLeases } from './memory-leases';
import { memoryPurgeTargets } from './memory-purge';
import { ackRow, heartbeatRow, nackRow, recordProgressRow } from './memory-settle';
import { queueStats } from './memory-stats';
import { memorySteps } from './memory-steps';
import { copyRow, MemoryStore } from './memory-store';
import { assertEnqueueRequest, assertEnqueueRequests } from '../../values/request';
import { checkedIntrospection } from '../../values/operator';

/** Options of {@link memoryJobDriver}. */
export interface MemoryJobDriverOptions {
  /** The clock every time the driver stamps or compares is read from (default `systemClock`). */
  readonly clock?: Clock;
}

/** The memory driver: a {@link JobDriver} that always carries the operator surface and the lease store. */
export interface MemoryJobDriver extends JobDriver {
  /** Always `'memory'`. */
  readonly kind: 'memory';
  /** The operator surface over the same maps, always present. */
  readonly introspect: JobIntrospection;
  /** The fleet lease store over the same maps, always present. */
  readonly leases: LeaseStore;
  /** A rescue and a claim in one pass over the maps (see {@link JobDriver.claimRescuing}); always present. */
  claimRescuing(options: ClaimOptions, rescue: RescueRequest): Promise<ClaimAndRescueResult>;
}

/**
 * A real job driver over in-process maps, for tests and single-process apps: it passes `jobDriverConformance` like the
 * PostgreSQL driver.
 * Every operation is one synchronous pass over the maps, so each is atomic the way one statement is. State lives as
 * long as the driver object, and `close()` keeps it, so a test can start a second worker on the same driver to play
 * a restart.
 */
export function memoryJobDriver(options: MemoryJobDriverOptions = {}): MemoryJobDriver {
  const store = new MemoryStore(options.clock ?? systemClock);
  // run synchronously, answered as a promise: a throw becomes a rejection, as from any driver
  const run = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };

  const workers = memoryWorkerRegistry(store);
  const claimPass = (claimOptions: ClaimOptions, rescue?: RescueRequest): ClaimAndRescueResult => {
    const { presence } = claimOptions;
    // refused before anything is rescued or claimed; a beat the claim carries lands with it (the registry writes at once)
    if (presence !== undefined) assertCarriedBeat(claimOptions.workerId, presence);
    const pass = claimRows(store, claimOptions, rescue);
    if (presence !== undefined) void workers.beat(presence.beat, presence.visibilityTimeoutMs);
    return pass;
  };

  return {
    kind: 'memory',
    // the value contract first: a request PostgreSQL could not store exactly is refused here too
    enqueue: (request) =>
      run(() => {
        assertEnqueueRequest(request);
        return enqueueOne(store, request);
      }),
    enqueueMany: (requests) =>
      run(() => {
        assertEnqueueRequests(requests);
        return enqueueBatch(store, requests);
      }),
    claim: (claimOptions) => run(() => claimPass(claimOptions).claimed),
    claimRescuing: (claimOptions, rescue) => run(() => claimPass(claimOptions, rescue)),
    rescue: (rescueOptions) => run(() => rescueRows(store, rescueOptions)),
    ack: (jobId, ackOptions) => run(() => ackRow(store, jobId, ackOptions)),
    ackMany: (items) => run(() => items.map((item) => ackRow(store, item.jobId, item))),
    nack: (jobId, nackOptions) => run(() => nackRow(store, jobId, nackOptions)),
    heartbeat: (jobId, claim, visibilityTimeoutMs) =>
      run(() => heartbeatRow(store, jobId, claim, visibilityTimeoutMs)),
    recordProgress: (jobId, claim, progress) =>
      run(() => recordProgressRow(store, jobId, claim, progress)),
    stats: () => run(() => queueStats(store)),
    // the store is this process's memory: always within reach
    ping: () => Promise.resolve(),
    get: (jobId) =>
      run(() => {
        const row = store.get(jobId);
        return row && copyRow(row);
      }),
    steps: memorySteps(store),
    introspect: checkedIntrospection(memoryIntrospection(store)),
    leases: memoryLeases(store),
    workerRegistry: workers,
    purgeTargets: (policy) => memoryPurgeTargets(store, policy),
    close: () => Promise.resolve(),
  };
}
