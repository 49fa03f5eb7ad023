import { readFileSync } from 'node:fs';
import { recordingLogger } from '@ultimat3/jobs';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresBackend } from '../backend/pg-backend';
import { startOutboxWake } from '../outbox/pg-outbox-wake';
import type { QueueWake } from './queue-wake';

/**
 * The timer the kernel runs on this machine's TCP socket whose local port is `port` (`/proc/net/tcp`, `tcp6`: the
 * `tr` column — 0 none, 1 retransmit, 2 keepalive or another, 3 TIME_WAIT, 4 zero-window probe).
 */
function socketTimer(port: number): number | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local address, state 01 (established), then tr:tm->when
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === '01') return Number(cols[5]?.split(':')[0]);
    }
  }
  return undefined;
}

/**
 * A LISTEN session sends nothing while it waits: without TCP keepalive a NAT or load balancer on the way forgets it
 * and the notifications stop with no error to re-dial on. Read from the kernel: the wake's own socket has its
 * keepalive timer running.
 */
describe('the wake session is kept alive by TCP probes', () => {
  const db = pgJobsSpec();

  /** The kernel's timer on this process's socket of the session named `ultimat3-jobs-wake`. */
  async function wakeSocketTimer(): Promise<number | undefined> {
    const { rows } = await db.pool.query<{ client_port: number }>(
      `select client_port from pg_stat_activity
        where application_name = 'ultimat3-jobs-wake' and datname = current_database()`,
    );
    expect(rows).toHaveLength(1);
    return socketTimer(rows[0]!.client_port);
  }

  async function check(wake: QueueWake): Promise<void> {
    try {
      expect(await wake.ready()).toBe(true);
      expect(await wakeSocketTimer()).toBe(2);
    } finally {
      await wake.stop();
    }
  }

  it("on the backend's session (the worker's and the relay's wake)", async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 1 });
    try {
      const wake = backend.startOutboxWake?.(() => undefined, recordingLogger());
      expect(wake).toBeDefined();
      await check(wake!);
    } finally {
      await backend.close();
    }
  });

  it("on the outbox store's own session (startOutboxWake over a wake URL)", async () => {
    await check(
      startOutboxWake({ url: db.url, executor: db.executor }, () => undefined, recordingLogger()),
    );
  });
});
