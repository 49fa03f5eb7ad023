import type { Socket } from 'node:net';
import { Client } from 'pg';
import { recordingLogger } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../../test/until';
import { partitionHop } from '../../../../test/partition-hop';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { startQueueWake, WAKE_PROBE_TIMEOUT_MS, WAKE_REDIAL_MS } from './queue-wake';

/** The socket under a `pg.Client` (not part of its typed surface). */
const socketOf = (client: Client): Socket =>
  (client as unknown as { connection: { stream: Socket } }).connection.stream;

describe('a wake whose session goes silent between its connect and its LISTEN (a partition)', () => {
  const db = pgJobsSpec();

  it('drops that session within the probe timeout of its clock, and re-dials to a live wake', async () => {
    const hop = await partitionHop(Number(new URL(db.url).port));
    const clients: Client[] = [];
    const clock = frozenClock();
    const logger = recordingLogger();
    const wake = startQueueWake({
      // the first session goes through the hop, cut once it has connected; the re-dial goes straight to the server
      listener: async () => {
        const url = new URL(db.url);
        const first = clients.length === 0;
        if (first) url.port = String(hop.port);
        const client = new Client({ connectionString: url.toString() });
        clients.push(client);
        if (first) {
          await client.connect();
          hop.cut();
        }
        return client;
      },
      executor: db.executor,
      target: { signalEnqueued: () => undefined, setWakeLive: () => undefined },
      clock,
      logger,
    });
    try {
      await until(() => clock.pending() > 0); // the LISTEN is on the wire, bounded
      await clock.advance(WAKE_PROBE_TIMEOUT_MS - 1);
      expect(socketOf(clients[0]!).destroyed).toBe(false);
      await clock.advance(1);
      await until(() => socketOf(clients[0]!).destroyed);
      expect(logger.named('jobs.wake.lost').map((e) => e.fields?.['error'])).toEqual([
        `the session did not answer LISTEN within ${WAKE_PROBE_TIMEOUT_MS} ms`,
      ]);
      await until(() => clock.pending() > 0); // the re-dial's wait
      await clock.advance(WAKE_REDIAL_MS);
      await until(() => wake.live());
      expect(clients).toHaveLength(2);
    } finally {
      await wake.stop();
      for (const client of clients) socketOf(client).destroy();
      await hop.stop();
    }
  });
});
