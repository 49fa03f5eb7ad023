import { scratchRedis } from '../../test/scratch-backends';
import { xCliScenario } from '../../test/x-cli/scenario';

/** The real `x` against the test redis-server, under a deployment prefix of this file's own (its keys deleted afterwards). */
xCliScenario('Redis', async () => {
  const { backend, flags, drop } = await scratchRedis('x-cli');
  return {
    flags,
    driver: backend.driver,
    async close() {
      await backend.close();
      await drop();
    },
  };
});
