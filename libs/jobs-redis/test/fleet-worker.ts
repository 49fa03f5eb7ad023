/**
 * One worker process of the fault spec (`redis-faults.spec.ts`), run from source through `libs/jobs-pg/test/swc-register.js` with an
 * IPC channel. argv: <redis url> <worker name>.
 *
 * It serves queue `fleet` at concurrency 10 on the Redis backend (deployment `fleet`) with its wake, so the hand-off
 * registers it whenever a pass finds nothing and an enqueue of a row due now may claim that row for it, and with a
 * short lease (1 s) so a SIGKILLed sibling's runs (handed or claimed) are rescued quickly; each run of `fleet.record` appends `n:attempt:run` to the list
 * `{fleet}:effects` (`run` a fresh UUID per body execution) — no dedupe, so a job that ran twice shows up twice, and
 * two runs of one claim (one attempt) show up as two entries with the same `n:attempt`. The same whole entry twice is
 * not a run: it is ioredis re-sending an RPUSH the server had executed when the connection dropped (the restart). Sends `{ type: 'ready' }` once serving; on
 * SIGTERM it drains, sends `{ type: 'stopped', stats }` and exits.
 */
import { randomUUID } from 'node:crypto';
import { job, JobRegistry, jobWorker, t } from '@ultimat3/jobs';
import { Redis } from 'ioredis';
import { redisBackend } from '../src/redis-backend';

const [url, name] = process.argv.slice(2) as [string, string];
const effects = new Redis(url);
effects.on('error', () => undefined);

const record = job({
  name: 'fleet.record',
  queue: 'fleet',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  retry: { attempts: 10, backoff: 'fixed', delay: 50, jitter: false },
  run: async ({ input, ctx }) => {
    await effects.rpush('{fleet}:effects', `${input.n}:${ctx.attempt}:${randomUUID()}`);
  },
});

async function main(): Promise<void> {
  const registry = new JobRegistry();
  registry.register(record);
  const backend = await redisBackend({ url, prefix: 'fleet' });
  const { driver } = backend;
  const worker = jobWorker({
    driver,
    registry,
    concurrency: 10,
    workerId: `fleet-${name}-${process.pid}`,
    visibilityTimeoutMs: 1_000,
    heartbeatIntervalMs: 250,
    pollIntervalMs: 50,
  });
  await worker.start();
  // the wake, and with it the hand-off: idle, the worker registers and blocks on its list
  const wake = backend.startWake(worker);
  process.once('SIGTERM', () => {
    worker.beginDrain('SIGTERM');
    void wake
      .stop()
      .then(() => worker.stop())
      .then(() => backend.close())
      .then(() => effects.quit())
      .then(() => {
        process.send?.({ type: 'stopped', stats: worker.stats() });
        process.disconnect?.();
      });
  });
  process.send?.({ type: 'ready' });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
