/**
 * The jest set-up chaos spec files repeat, registered once: the spec file's database holding the ground-truth table
 * ({@link truthSpec}), and with it the worker processes and the runs of a scenario that spawns its own fleet
 * ({@link fleetSpec}). Call either at the top of the spec file or of a `describe`; read its fields inside the tests.
 */
import type { SpecDatabase } from '../../libs/jobs-pg/test/pg-jobs-spec';
import { chaosDatabaseSpec, createChaosRun, type ChaosDriverName, type ChaosRun } from './drivers';
import { createGroundTruth } from './ground-truth';
import { ChaosFleet } from './processes';

/** A spec's ground-truth database. */
export interface TruthSpec {
  /** The spec's own database, its ground-truth table created (from `beforeAll` on). */
  readonly db: SpecDatabase;
}

/** A spec's ground-truth database, its worker processes and its runs. */
export interface FleetSpec extends TruthSpec {
  /** The spec's worker processes: every one still running is SIGKILLed in `afterAll`. */
  readonly fleet: ChaosFleet;
  /** Fresh storage for a run on `driver` ({@link createChaosRun}), dropped in `afterAll` after the fleet is killed. */
  createRun(driver: ChaosDriverName): Promise<ChaosRun>;
}

/**
 * Registers the spec's database ({@link chaosDatabaseSpec}) and a `beforeAll` that creates its ground-truth table.
 */
export function truthSpec(): TruthSpec {
  return registerTruthDatabase(() => Promise.resolve());
}

/**
 * {@link truthSpec}, and in its `afterAll`, before the database is dropped: every process of `fleet` killed, then
 * every run made through `createRun` dropped.
 */
export function fleetSpec(): FleetSpec {
  const fleet = new ChaosFleet();
  const runs: ChaosRun[] = [];
  const truth = registerTruthDatabase(async () => {
    await fleet.killAll();
    for (const run of runs.splice(0)) await run.drop();
  });
  return {
    db: truth.db,
    fleet,
    async createRun(driver) {
      const run = await createChaosRun(driver, truth.db);
      runs.push(run);
      return run;
    },
  };
}

/** The hooks of {@link truthSpec}; `beforeDrop` runs in the `afterAll` before the database is dropped. */
function registerTruthDatabase(beforeDrop: () => Promise<void>): TruthSpec {
  const db = chaosDatabaseSpec(beforeDrop);
  beforeAll(async () => {
    await createGroundTruth(db.pool);
  });
  return { db };
}
