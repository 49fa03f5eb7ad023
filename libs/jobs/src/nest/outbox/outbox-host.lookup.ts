import type { ModuleRef } from '@nestjs/core';
import { OutboxHost } from './outbox.host';

/**
 * This app's `OutboxHost`, looked up on first call and remembered: `OutboxModule` is optional and not global, so the
 * health indicator and the metrics collector find it wherever it was imported — or answer `undefined` without it.
 * Looked up late (at a probe or a scrape, never in a constructor) so the import order of the modules does not matter.
 */
export function outboxHostLookup(moduleRef: ModuleRef): () => OutboxHost | undefined {
  let looked = false;
  let host: OutboxHost | undefined;
  return () => {
    if (!looked) {
      looked = true;
      try {
        host = moduleRef.get(OutboxHost, { strict: false });
      } catch {
        host = undefined;
      }
    }
    return host;
  };
}
