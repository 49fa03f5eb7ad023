/**
 * The OTHER process of the latency probe: a relay and a worker over the database `OUTBOX_LATENCY_DB` names. Each job
 * it starts prints `{"id":…,"startedAt":…}` on stdout. With `OUTBOX_LATENCY_WAKE=listen` it LISTENs on
 * `x_outbox_wake` and wakes the relay (the wiring the lead adds later); otherwise the relay only polls. It prints
 * `ready` once both run, and stops (joining both) when stdin closes.
 */
import { Client, Pool } from 'pg';
import { job, JobRegistry, jobWorker, outboxRelay, t } from '@ultimat3/jobs';
import {
  OUTBOX_WAKE_CHANNEL,
  pgPoolExecutor,
  postgresJobDriver,
  postgresOutboxStore,
} from '@ultimat3/jobs-pg';
import { LATENCY_JOB, LATENCY_QUEUE } from './latency-job';

async function main(): Promise<void> {
  const url = process.env['OUTBOX_LATENCY_DB'] ?? '';
  const pool = new Pool({ connectionString: url, max: 8 });
  const executor = pgPoolExecutor(pool);
  const driver = postgresJobDriver({ executor });
  const store = postgresOutboxStore({ executor });
  const ping = job({
    name: LATENCY_JOB,
    queue: LATENCY_QUEUE,
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `ping:${n}`,
    tenant: 'none',
    async run({ jobId }) {
      process.stdout.write(`${JSON.stringify({ id: jobId, startedAt: Date.now() })}\n`);
    },
  });
  const registry = new JobRegistry();
  registry.register(ping);
  const worker = jobWorker({ driver, registry });
  const relay = outboxRelay({ store, driver, onPublished: (q) => worker.signalEnqueued(q) });
  let listener: Client | undefined;
  if (process.env['OUTBOX_LATENCY_WAKE'] === 'listen') {
    listener = new Client({ connectionString: url });
    await listener.connect();
    listener.on('notification', () => relay.wake());
    await listener.query(`listen ${OUTBOX_WAKE_CHANNEL}`);
  }
  await worker.start();
  relay.start();
  process.stdout.write('ready\n');
  process.stdin.resume();
  process.stdin.on('end', () => {
    void (async () => {
      await listener?.end();
      await relay.stop();
      await worker.stop();
      await pool.end();
      process.exit(0);
    })();
  });
}

void main();
