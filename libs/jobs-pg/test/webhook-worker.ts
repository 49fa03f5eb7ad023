/**
 * One worker process of the webhook SIGTERM spec (`src/webhook/webhook-sigterm.spec.ts`), run from source through
 * `swc-register.js` with an IPC channel. argv: <database url> <receiver url> [<visibility timeout ms>].
 *
 * Serves `pg.webhook.sigterm` — one delivery to the receiver, its attempts in the PostgreSQL webhook ledger — on the
 * default queue, renewing its lease every third of the visibility timeout (default 30 s; the lease specs pass a short
 * one). Sends `{ type: 'ready' }` once serving; on SIGTERM it begins the drain and sends `{ type: 'draining' }`, then
 * `{ type: 'stopped', stats }` once drained, and exits.
 */
import { Pool } from 'pg';
import { JobRegistry, jobWorker, webhook } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresJobDriver, postgresWebhookLedger } from '@ultimat3/jobs-pg';
import { serveWorker } from './worker-process';

const [url, hookUrl, visibility] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 4 });
pool.on('error', () => undefined);
const executor = pgPoolExecutor(pool);

async function main(): Promise<void> {
  const registry = new JobRegistry();
  registry.register(
    webhook({
      name: 'pg.webhook.sigterm',
      tenant: 'none',
      endpoint: () => ({ url: hookUrl ?? '', secret: 'sigterm-secret' }),
      event: ({ eventId }) => ({ topic: 'orders.paid', body: JSON.stringify({ eventId }) }),
      ledger: postgresWebhookLedger({ executor }),
      disableAfter: 3,
      destinations: { allowPrivate: true },
      retry: { attempts: 1 },
    }),
  );
  const worker = jobWorker({
    driver: postgresJobDriver({ executor }),
    registry,
    workerId: 'webhook-sigterm',
    ...(visibility === undefined ? {} : { visibilityTimeoutMs: Number(visibility) }),
  });
  await serveWorker({ url, pool, executor, worker, stopped: () => ({ stats: worker.stats() }) });
  // registered after serveWorker's own: told once the drain has begun (its accept phase runs synchronously)
  process.once('SIGTERM', () => process.send?.({ type: 'draining' }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
