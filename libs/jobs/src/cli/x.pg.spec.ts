import { scratchPostgres } from '../../test/scratch-backends';
import { xCliScenario } from '../../test/x-cli/scenario';
import { scratchTarget } from '../../test/x-cli/target';

/** The real `x` against the test PostgreSQL, in a schema of this file's own (dropped afterwards). */
xCliScenario('PostgreSQL', async () => scratchTarget(await scratchPostgres('x_cli')));
