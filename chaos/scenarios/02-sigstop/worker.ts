/** Scenario 2's worker process: argv[2] is a {@link ChaosWorkerConfig} (JSON). */
import { chaosChildConfig, runChaosChild } from '../../harness/child';
import { serveChaosWorker, type ChaosWorkerConfig } from '../../harness/worker-child';
import { registerSigstopJob } from './jobs';

runChaosChild(() => serveChaosWorker(chaosChildConfig<ChaosWorkerConfig>(), registerSigstopJob));
