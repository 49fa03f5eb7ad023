import { scratchPostgres } from '../../test/scratch-backends';
import { xCliScenario } from '../../test/x-cli/scenario';

/** The real `x` against the test PostgreSQL, in a schema of this file's own (dropped afterwards). */
xCliScenario('PostgreSQL', async () => {
  const { backend, flags, drop } = await scratchPostgres('x_cli');
  return {
    flags,
    driver: backend.driver,
    async close() {
      await backend.close();
      await drop();
    },
  };
});
