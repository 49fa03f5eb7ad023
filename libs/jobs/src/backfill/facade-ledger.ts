import type { JobsFacade } from '../declare/ambient';
import type { BackfillLedger } from './ledger';

/**
 * `facade` carrying the backend's backfill ledger, so a `backfill()` pass run by this app records itself there
 * (`JobsModule` wraps the facade it installs). A facade that already names its backfill runtime, or a backend with no
 * ledger, is answered as it is.
 */
export function withBackfillLedger(
  facade: JobsFacade,
  ledger: BackfillLedger | undefined,
): JobsFacade {
  if (ledger === undefined || facade.backfills !== undefined) return facade;
  return {
    now: () => facade.now(),
    enqueue: (request, options) => facade.enqueue(request, options),
    enqueueMany: (requests, options) => facade.enqueueMany(requests, options),
    ...(facade.events === undefined ? {} : { events: facade.events }),
    backfills: { ledger },
  };
}
