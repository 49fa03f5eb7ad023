/** Scenario 2's worker process: argv[2] is a {@link ChaosWorkerConfig} (JSON). */
import { Pool } from 'pg';
import { chaosChildConfig, runChaosChild } from '../../harness/child';
import { serveChaosWorker, type ChaosWorkerConfig } from '../../harness/worker-child';
import { earlierWriteWatch, registerSigstopJob } from './jobs';

/** How long a takeover run waits for the frozen attempt's write before it fails (the spec then fails too). */
const OUTLAST_MS = 60_000;

runChaosChild(() => {
  const config = chaosChildConfig<ChaosWorkerConfig>();
  // the takeover's reads of the ground truth; the process exits on SIGTERM with it open
  const reader = new Pool({ connectionString: config.truthUrl, max: 2 });
  reader.on('error', () => undefined);
  const earlierWrite = earlierWriteWatch(reader, config.run, OUTLAST_MS);
  return serveChaosWorker(config, (registry, truth) =>
    registerSigstopJob(registry, truth, earlierWrite),
  );
});
