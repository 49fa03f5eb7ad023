/** Scenario 9's worker process (scenario 1's job): argv[2] is a {@link ChaosWorkerConfig} (JSON). */
import { chaosChildConfig, runChaosChild } from '../../harness/child';
import { serveChaosWorker, type ChaosWorkerConfig } from '../../harness/worker-child';
import { registerKillsJob } from '../01-worker-kills/jobs';

runChaosChild(() => serveChaosWorker(chaosChildConfig<ChaosWorkerConfig>(), registerKillsJob));
