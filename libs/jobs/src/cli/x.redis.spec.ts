import { scratchRedis } from '../../test/scratch-backends';
import { xCliScenario } from '../../test/x-cli/scenario';
import { scratchTarget } from '../../test/x-cli/target';

/** The real `x` against the test redis-server, under a deployment prefix of this file's own (its keys deleted afterwards). */
xCliScenario('Redis', async () => scratchTarget(await scratchRedis('x-cli')));
