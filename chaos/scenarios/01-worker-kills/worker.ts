/** Scenario 1's worker process: argv[2] is a {@link ChaosWorkerConfig} (JSON). */
import { chaosChildConfig, runChaosChild } from '../../harness/child';
import { serveChaosWorker, type ChaosWorkerConfig } from '../../harness/worker-child';
import { registerKillsJob } from './jobs';

runChaosChild(() => serveChaosWorker(chaosChildConfig<ChaosWorkerConfig>(), registerKillsJob));
