import { Client } from 'pg';
import { until } from '../../../test/until';
import { WAKE_CHANNEL } from '../src/wake/wake-session';
import type { SpecDatabase } from './pg-jobs-spec';

/** A raw LISTEN session on the wake channel of a spec's database: what the enqueue statements announce. */
export interface WakeListener {
  /**
   * Sends a fresh marker through the spec's pool and waits until the session hears it (10 s at most). A listener
   * receives notifications in commit order, so once the marker is in, everything the statements before it announced
   * is too — "nothing was announced" needs no sleep. Answers every payload heard since the last call, in order, and
   * the marker sent.
   */
  sinceMarker(): Promise<{ readonly heard: string[]; readonly marker: string }>;
  /** Ends the session: call it from `pgJobsSpec`'s `beforeDrop`, the drop would cut it. */
  end(): Promise<void>;
}

/** Registers a `beforeAll` that opens the session on `db` — call it after `pgJobsSpec`, whose `beforeAll` makes `db`. */
export function wakeListener(db: SpecDatabase): WakeListener {
  let listener: Client | undefined;
  const heard: string[] = [];
  let marker = 0;
  beforeAll(async () => {
    listener = new Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (n) => {
      if (n.channel === WAKE_CHANNEL) heard.push(n.payload ?? '');
    });
    await listener.query(`listen ${WAKE_CHANNEL}`);
  });
  return {
    async sinceMarker() {
      const mark = `marker/${marker++}`;
      await db.pool.query('select pg_notify($1, $2)', [WAKE_CHANNEL, mark]);
      await until(() => heard.includes(mark));
      return { heard: heard.splice(0, heard.length), marker: mark };
    },
    async end() {
      await listener?.end();
    },
  };
}
