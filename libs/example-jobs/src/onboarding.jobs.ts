import { job, t } from '@ultimat3/jobs';

/**
 * Onboards one org: provision it, send the welcome email, wait three days, nudge. The body is the `@Job` method on
 * `OnboardingJobs`, so it can use injected services.
 */
export const onboardOrg = job({
  name: 'onboard-org',
  input: t.object({ orgId: t.uuid }),
  idempotencyKey: ({ orgId }) => `onboard:${orgId}`,
  tenant: ({ orgId }) => orgId,
  retry: { attempts: 5, backoff: 'exponential' },
});
