import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { partitionHop, type PartitionHop } from '../../../../test/partition-hop';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { bootThroughHop } from '../../test/boot-through-hop';

/** Terminate: 'X' then its length (4), which the client sends alone before its FIN. */
const isTerminate = (chunk: Buffer): boolean =>
  chunk.length === 5 && chunk[0] === 0x58 && chunk.readInt32BE(1) === 4;

/**
 * A hop that forwards both ways, except on its FIRST session (the boot's): once that session's client sends its
 * goodbye, the hop swallows everything of it from then on (half-open: nothing answers the goodbye) — a network
 * partition that falls just as a successful boot ends its session, where a graceful `end()` waits for a close that
 * never comes.
 */
const goodbyeHop = (upstreamPort: number): Promise<PartitionHop> =>
  partitionHop(upstreamPort, { cutOn: (chunk, session) => session === 0 && isTerminate(chunk) });

describe('postgresBackend whose boot session meets a partition at its goodbye', () => {
  // migrated: a boot told not to migrate checks that the tables are there
  const db = pgJobsSpec();

  for (const migrate of [false, true]) {
    it(`boots all the same, in bounded time (migrate: ${migrate})`, async () => {
      const hop = await goodbyeHop(Number(new URL(db.url).port));
      try {
        const { outcome: backend, startedAt } = await bootThroughHop(db.url, hop.port, migrate);
        expect(hop.wasCut()).toBe(true); // the boot's goodbye went unanswered
        expect(backend).toMatchObject({ kind: 'postgres', close: expect.any(Function) });
        expect(Date.now() - startedAt).toBeLessThan(8_000);
        await (backend as { close(): Promise<void> }).close();
      } finally {
        await hop.stop();
      }
    });
  }

  it('lets go of the boot session’s socket: a process done with its backend ends by itself', async () => {
    const hop = await goodbyeHop(Number(new URL(db.url).port));
    try {
      const url = new URL(db.url);
      url.port = String(hop.port);
      const script = `
        const { postgresBackend } = require('@ultimat3/jobs-pg');
        postgresBackend({ url: process.argv[1] }, { connectTimeoutMs: 1_500 })
          .then((backend) => backend.close())
          .then(() => console.log('closed'), (error) => { console.error(error); process.exit(2); });`;
      const child = spawn(
        process.execPath,
        [
          '-r',
          join(__dirname, '..', '..', 'test', 'swc-register.js'),
          '-e',
          script,
          url.toString(),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      // a half-open socket left behind holds the process: the bound ends the wait (and the child) instead
      const bound = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (c, s) => resolve([c, s])),
      );
      clearTimeout(bound);
      expect(out).toContain('closed');
      expect(hop.wasCut()).toBe(true);
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      await hop.stop();
    }
  }, 30_000);
});
