import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * `JOBS_EMBEDDED_POSTGRES` picks the embedded PostgreSQL the tests and the bench start (`scripts/throwaway-postgres.mjs`,
 * a native ES module, so each case runs in a Node process of its own): each supported major is installed and answers
 * as that version, and anything else is refused with its code before a server starts.
 */
const SCRIPT = join(__dirname, '..', 'scripts', 'throwaway-postgres.mjs');
const PG = require.resolve('pg');

/** Runs `body` (an ES module's text, `SCRIPT` imported as `t`) with `JOBS_EMBEDDED_POSTGRES` set to `version`. */
function run(version: string | undefined, body: string): { status: number | null; out: string } {
  const env = { ...process.env };
  delete env.JOBS_EMBEDDED_POSTGRES;
  if (version !== undefined) env.JOBS_EMBEDDED_POSTGRES = version;
  const child = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import * as t from ${JSON.stringify(SCRIPT)};\nimport { createRequire } from 'node:module';\n` +
        `const pg = createRequire(import.meta.url)(${JSON.stringify(PG)});\n${body}`,
    ],
    { env, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: child.status, out: `${child.stdout}${child.stderr}` };
}

const SERVER_VERSION = `
const server = await t.startThrowawayPostgres({ name: 'jobs-version-pg', password: 'v' });
try {
  const client = new pg.Client(server.url);
  await client.connect();
  const { rows } = await client.query('show server_version_num');
  await client.end();
  console.log('major', Math.floor(Number(rows[0].server_version_num) / 10000));
} finally {
  await server.stop();
}
`;

describe('JOBS_EMBEDDED_POSTGRES', () => {
  it.each([
    [undefined, 18],
    ['18', 18],
    ['17', 17],
    ['16', 16],
    ['15', 15],
  ])('set to %s starts PostgreSQL %i', (version, major) => {
    const { status, out } = run(version, SERVER_VERSION);
    expect(out).toContain(`major ${major}\n`);
    expect(status).toBe(0);
  });

  it.each(['14', '19', 'toString', 'latest'])(
    'set to %s is refused with X_EMBEDDED_POSTGRES_VERSION, naming the versions there are',
    (version) => {
      const { status, out } = run(version, SERVER_VERSION);
      expect(out).toContain(
        `X_EMBEDDED_POSTGRES_VERSION: JOBS_EMBEDDED_POSTGRES is ${JSON.stringify(version)}`,
      );
      expect(out).toContain('15, 16, 17 or 18');
      expect(out).not.toContain('major');
      expect(status).not.toBe(0);
    },
  );
});
