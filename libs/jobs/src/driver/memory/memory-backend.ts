import { memoryBackfillLedger } from '../../backfill/memory-ledger';
import { memoryEventBus } from '../../events/memory-event-bus';
import { memorySchedulerState } from '../../scheduler/memory-scheduler-state';
import { systemClock, type Clock } from '../../util/clock';
import type { BackendCapabilities, JobsBackend } from '../backend';
import { memoryJobDriver, type MemoryJobDriver } from './memory-driver';

/** Options of {@link memoryBackend}. */
export interface MemoryBackendOptions {
  /** The clock the driver, the event bus and the scheduler state read (default `systemClock`). */
  readonly clock?: Clock;
}

/** The memory backend: its driver is the memory driver. */
export interface MemoryBackend extends JobsBackend {
  /** The memory driver, with its operator surface and lease store. */
  readonly driver: MemoryJobDriver;
}

/**
 * Everything in this process's memory: nothing survives a restart and nothing is shared with another process, so it
 * declares no wake (there is no other process to hear). Its leader is a lease in its own lease store: schedulers
 * sharing one memory backend (tests) elect one.
 */
export const MEMORY_CAPABILITIES: BackendCapabilities = {
  steps: true,
  events: true,
  leases: true,
  introspection: true,
  schedulerState: true,
  leader: true,
  wake: false,
  batchAck: true,
  handOff: false,
};

/** The memory backend: `memoryJobDriver`, `memoryEventBus` and `memorySchedulerState`, on one clock. */
export function memoryBackend(options: MemoryBackendOptions = {}): MemoryBackend {
  const clock = options.clock ?? systemClock;
  const driver = memoryJobDriver({ clock });
  return {
    kind: driver.kind,
    driver,
    capabilities: MEMORY_CAPABILITIES,
    events: memoryEventBus({ clock }),
    schedulerState: memorySchedulerState({ driver, clock }),
    backfills: memoryBackfillLedger(),
    close: () => Promise.resolve(),
  };
}
