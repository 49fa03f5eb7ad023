/**
 * Scenario 3's faults, one round: the server restarted (stop, then start on the same port and data), a read-only window
 * (PostgreSQL), and the network stalled past the lease, then cut, then healed — each after a seeded pause, each with a
 * seeded length.
 */
import type { FaultEnd } from '../../harness/faulted-fleet';
import type { ChaosRandom } from '../../harness/schedule';
import type { FaultedServer } from './faulted-server';

/** What a round injected: each fault as the report prints it, and when each ended. */
export interface FaultLog {
  readonly faults: string[];
  readonly ended: FaultEnd[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs one round of faults on `server`; the stall outlasts `leaseMs` so runs in flight lose their leases. */
export async function injectDbFaults(
  server: FaultedServer,
  random: ChaosRandom,
  leaseMs: number,
  log: FaultLog,
): Promise<void> {
  const ended = (fault: string, text: string): void => {
    log.faults.push(text);
    log.ended.push({ fault, at: Date.now() });
  };
  await sleep(random.between(800, 1_500));
  const downMs = Math.round(random.between(300, 1_000));
  await server.restart(downMs);
  ended('restart', `restart (down ${downMs} ms)`);
  if (server.readOnly) {
    await sleep(random.between(800, 1_500));
    const holdMs = Math.round(random.between(1_500, 2_500));
    await server.readOnly(true);
    await sleep(holdMs);
    await server.readOnly(false);
    ended('read-only', `read-only window ${holdMs} ms`);
  }
  await sleep(random.between(800, 1_500));
  const stallMs = Math.round(leaseMs + random.between(500, 1_500));
  const cutMs = Math.round(random.between(800, 1_500));
  server.proxy.stall();
  await sleep(stallMs);
  await server.proxy.cut('refuse');
  await sleep(cutMs);
  await server.proxy.heal();
  ended('network', `network stalled ${stallMs} ms then cut ${cutMs} ms`);
}
