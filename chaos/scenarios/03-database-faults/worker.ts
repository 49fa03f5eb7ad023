/**
 * A worker process of scenario 3: the chaos worker ({@link serveChaosWorker}) serving the scenario's job, its driver
 * reaching the faulted server through the spec's TCP proxy. argv: the JSON {@link DbFaultsWorkerConfig}.
 */
import { chaosChildConfig, runChaosChild } from '../../harness/child';
import { serveChaosWorker, type ChaosWorkerConfig } from '../../harness/worker-child';
import { registerFaultJob } from './db-faults-job';

/** The worker's config: the chaos worker's, and how long each step body takes. */
export interface DbFaultsWorkerConfig extends ChaosWorkerConfig {
  readonly stepMs: number;
}

runChaosChild(async () => {
  const config = chaosChildConfig<DbFaultsWorkerConfig>();
  await serveChaosWorker(config, (registry, truth) =>
    registerFaultJob(registry, truth, config.stepMs),
  );
});
