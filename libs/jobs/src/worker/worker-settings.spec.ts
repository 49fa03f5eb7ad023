import { hostname } from 'node:os';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { JobRegistry } from '../registry/job-registry';
import { frozenClock } from '../testing/frozen-clock';
import { systemClock } from '../util/clock';
import { recordingLogger, silentLogger } from '../util/logger';
import {
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  POLL_INTERVAL_MS,
  type JobWorkerOptions,
} from './worker-options';
import { workerSettings } from './worker-settings';

describe('workerSettings', () => {
  const base = (): JobWorkerOptions => ({ driver: memoryJobDriver(), registry: new JobRegistry() });

  it('applies the defaults: system clock, silent logger, a host:pid:random id, a heartbeat a third of the lease', () => {
    const s = workerSettings(base());
    expect(s.clock).toBe(systemClock);
    expect(s.logger).toBe(silentLogger);
    expect(s.id.startsWith(`${hostname()}:${process.pid}:`)).toBe(true);
    expect(s.id).toMatch(/:[0-9a-f]{8}$/);
    expect(workerSettings(base()).id).not.toBe(s.id);
    expect(s).toMatchObject({
      visibilityTimeoutMs: DEFAULT_VISIBILITY_TIMEOUT_MS,
      heartbeatIntervalMs: DEFAULT_VISIBILITY_TIMEOUT_MS / 3,
      floorMs: POLL_INTERVAL_MS,
    });
    // a third of a lease that does not divide by 3, in whole ms
    expect(workerSettings({ ...base(), visibilityTimeoutMs: 1_000 }).heartbeatIntervalMs).toBe(333);
  });

  it('keeps what the options give', () => {
    const clock = frozenClock();
    const logger = recordingLogger();
    const s = workerSettings({
      ...base(),
      clock,
      logger,
      workerId: 'w-1',
      visibilityTimeoutMs: 4_000,
      heartbeatIntervalMs: 500,
      pollIntervalMs: 20,
    });
    expect(s).toEqual({
      id: 'w-1',
      clock,
      logger,
      visibilityTimeoutMs: 4_000,
      heartbeatIntervalMs: 500,
      floorMs: 20,
    });
  });

  it('refuses timings a worker cannot keep: X_INVARIANT naming the field', () => {
    const refusal = (options: Partial<JobWorkerOptions>): unknown => {
      try {
        workerSettings({ ...base(), ...options });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const late = refusal({ visibilityTimeoutMs: 2_000, heartbeatIntervalMs: 1_500 });
    expect(errorCodeOf(late)).toBe('X_INVARIANT');
    expect(String(late)).toContain('heartbeatIntervalMs (1500) must be at most half');
    const poll = refusal({ pollIntervalMs: 0 });
    expect(errorCodeOf(poll)).toBe('X_INVARIANT');
    expect(String(poll)).toContain('pollIntervalMs');
  });
});
