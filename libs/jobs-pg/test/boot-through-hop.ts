import { settledWithin } from '../../../test/until';
import { postgresBackend } from '../src/backend/pg-backend';

/** The connect and step bound {@link bootThroughHop} gives a boot. */
export const HOP_BOOT_TIMEOUT_MS = 1_500;

/**
 * What `postgresBackend` settled with (its backend, its error, or `'hung'` after 8 s) booting over `dbUrl` through a
 * hop listening on `hopPort`, and when it started. `connectTimeoutMs` bounds the connect as well as each step: it is
 * long enough for a connect on a loaded machine (a backend forked, the SCRAM exchange), since under CI's load a 300 ms
 * bound once gave out in the connect, before the step a case was about.
 */
export async function bootThroughHop(
  dbUrl: string,
  hopPort: number,
  migrate: boolean,
): Promise<{ outcome: unknown; startedAt: number }> {
  const url = new URL(dbUrl);
  url.port = String(hopPort);
  const startedAt = Date.now();
  const outcome = await settledWithin(
    postgresBackend({ url: url.toString() }, { connectTimeoutMs: HOP_BOOT_TIMEOUT_MS, migrate }),
    8_000,
  );
  return { outcome, startedAt };
}
