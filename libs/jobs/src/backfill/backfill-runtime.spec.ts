import { setJobsFacade } from '../declare/ambient';
import { directJobsFacade } from '../declare/direct-facade';
import { memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { defaultBackfillEnvironment, resolveBackfillRuntime } from './backfill-runtime';
import { withBackfillLedger } from './facade-ledger';
import { memoryBackfillLedger } from './memory-ledger';

/** A facade over a fresh memory driver, as `runJobs` installs one. */
const facade = () => directJobsFacade({ driver: memoryJobDriver({ clock: frozenClock() }) });

describe('the runtime a backfill pass runs against', () => {
  it('serves JOBS_ENVIRONMENT over NODE_ENV, and development when neither names one', () => {
    expect(
      defaultBackfillEnvironment({ JOBS_ENVIRONMENT: 'staging', NODE_ENV: 'production' }),
    ).toBe('staging');
    expect(defaultBackfillEnvironment({ NODE_ENV: 'production' })).toBe('production');
    expect(defaultBackfillEnvironment({ JOBS_ENVIRONMENT: '', NODE_ENV: '' })).toBe('development');
  });

  it("records into the declaration's own ledger over the one the installed facade carries", () => {
    const own = memoryBackfillLedger();
    const app = memoryBackfillLedger();
    const uninstall = setJobsFacade(withBackfillLedger(facade(), app));
    try {
      expect(resolveBackfillRuntime(undefined).ledger).toBe(app);
      expect(resolveBackfillRuntime({ ledger: own, environment: 'test' })).toMatchObject({
        environment: 'test',
        appVersion: null,
      });
      expect(resolveBackfillRuntime({ ledger: own }).ledger).toBe(own);
      expect(resolveBackfillRuntime(() => ({ ledger: own })).ledger).toBe(own);
    } finally {
      uninstall();
    }
  });

  it("keeps a facade's own backfill runtime when the backend's ledger is wrapped around it", () => {
    const named = memoryBackfillLedger();
    const backend = memoryBackfillLedger();
    const own = { ...facade(), backfills: { ledger: named, environment: 'staging' } };
    expect(withBackfillLedger(own, backend)).toBe(own);
    expect(withBackfillLedger(facade(), backend).backfills).toEqual({ ledger: backend });
    const bare = facade();
    expect(withBackfillLedger(bare, undefined)).toBe(bare);
  });
});
