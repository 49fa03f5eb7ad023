import { backfill } from '@ultimat3/jobs';

/** Never read by the specs that load this app: `x db backfill` gates and enqueues, the workers sweep. */
const noSource = (): never => {
  throw new Error('the x db backfill specs never run a pass');
};

/** A backfill with no prerequisite. */
export const xAppSlugs = backfill({
  name: 'x-app-slugs',
  tenant: 'none',
  source: noSource,
  count: () => 3,
  handle: () => undefined,
});

/** A backfill that needs a migration of the app first. */
export const xAppPublishAt = backfill({
  name: 'x-app-publish-at',
  tenant: 'none',
  requires: 'AddPublishAt1786708800001',
  source: noSource,
  handle: () => undefined,
});
