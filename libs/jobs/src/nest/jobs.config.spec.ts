import { memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { resolveJobsConfig } from './jobs.config';
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
      { shutdown: { deadlineMs: Number.NaN } },
    ];
    for (const options of bad) {
      expect(codeOf(() => resolveJobsConfig(loose({ driver: 'memory', ...options }), {}))).toBe(
        'X_INVARIANT',
      );
    }
  });
});
