import { memoryBackend, memoryJobDriver } from '../driver/memory';
import { memoryEventBus } from '../events/memory-event-bus';
import { frozenClock } from '../testing/frozen-clock';
import { loadJobsConfig, resolveJobsConfig } from './jobs.config';
import type { JobsModuleOptions } from './jobs.options';
import { codeOf } from '../../test/outcomes';

/** Options as a JS caller or a config file might hand them over, unchecked by the compiler. */
const loose = (options: Record<string, unknown>): JobsModuleOptions =>
  options as unknown as JobsModuleOptions;

describe('resolveJobsConfig', () => {
  it('fills the defaults: web and worker roles, a 25 s drain, a memory driver and bus', () => {
    const config = resolveJobsConfig({ driver: 'memory' }, {});
    expect([...config.roles]).toEqual(['web', 'worker']);
    expect(config.shutdownDeadlineMs).toBe(25_000);
    expect(config.driver.kind).toBe('memory');
    expect(config.worker).toEqual({});
  });

  it('reads JOBS_ROLES when no roles are passed, and prefers passed roles', () => {
    const env = { JOBS_ROLES: ' worker, scheduler ,' };
    expect([...resolveJobsConfig({ driver: 'memory' }, env).roles]).toEqual([
      'worker',
      'scheduler',
    ]);
    expect([...resolveJobsConfig({ driver: 'memory', roles: ['web'] }, env).roles]).toEqual([
      'web',
    ]);
    expect(codeOf(() => resolveJobsConfig({ driver: 'memory' }, { JOBS_ROLES: 'web,cron' }))).toBe(
      'X_INVARIANT',
    );
  });

  it('names where a bad role came from: JOBS_ROLES, or the roles option', () => {
    const fromEnv = (): unknown => resolveJobsConfig({ driver: 'memory' }, { JOBS_ROLES: 'cron' });
    expect(fromEnv).toThrow('JobsModule JOBS_ROLES names an unknown role "cron"');
    const passed = loose({ driver: 'memory', roles: ['cron'] });
    expect(() => resolveJobsConfig(passed, { JOBS_ROLES: 'web' })).toThrow(
      'JobsModule roles names an unknown role "cron"',
    );
  });

  it("prefers an explicit events bus to the backend's own", async () => {
    const clock = frozenClock();
    const backend = memoryBackend({ clock });
    const events = memoryEventBus({ clock });
    expect((await loadJobsConfig({ backend, clock }, {})).events).toBe(backend.events);
    expect((await loadJobsConfig({ backend, clock, events }, {})).events).toBe(events);
  });

  it('keeps a driver instance, and refuses drivers this build cannot create', () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    expect(resolveJobsConfig({ driver }, {}).driver).toBe(driver);
    for (const name of ['postgres', 'redis', undefined, {}]) {
      expect(codeOf(() => resolveJobsConfig(loose({ driver: name }), {}))).toBe(
        'X_DRIVER_UNAVAILABLE',
      );
    }
  });

  it('refuses bad roles, worker knobs and deadlines with X_INVARIANT', () => {
    const bad: Record<string, unknown>[] = [
      { roles: [] },
      { roles: ['web', 'janitor'] },
      { worker: { concurrency: 0 } },
      { worker: { concurrency: { default: 1.5 } } },
      { worker: { visibilityTimeoutMs: -1 } },
      { worker: { queues: [''] } },
      { worker: { idlePollMaxMs: 0 } },
      { shutdown: { deadlineMs: Number.NaN } },
      { shutdown: { deadlineMs: -1 } },
    ];
    for (const options of bad) {
      expect(codeOf(() => resolveJobsConfig(loose({ driver: 'memory', ...options }), {}))).toBe(
        'X_INVARIANT',
      );
    }
  });

  it('takes a drain deadline of 0 ms: a shutdown that waits for nothing', () => {
    const config = resolveJobsConfig({ driver: 'memory', shutdown: { deadlineMs: 0 } }, {});
    expect(config.shutdownDeadlineMs).toBe(0);
  });
});
