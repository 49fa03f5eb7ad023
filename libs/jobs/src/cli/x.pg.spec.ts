import { postgresBackend } from '@ultimat3/jobs-pg';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testDatabaseUrl } from '../../../../test/test-env';
import { xCliScenario } from '../../test/x-cli/scenario';

/** The real `x` against the test PostgreSQL, in a schema of this file's own (dropped afterwards). */
xCliScenario('PostgreSQL', async () => {
  const url = testDatabaseUrl();
  const schema = `x_cli_${randomBytes(5).toString('hex')}`;
  const backend = await postgresBackend({ url }, { schema });
  return {
    flags: ['--url', url, '--schema', schema],
    driver: backend.driver,
    async close() {
      await backend.close();
      const client = new Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
});
