import { job, t } from '@ultimat3/jobs';

/**
 * Tells an org's subscribers about a post it published. The web app enqueues it in the SAME transaction that saves
 * the post (through `OutboxInterceptor`): it is staged in the outbox, and the relay publishes it only once that
 * transaction committed — a rolled-back post notifies nobody. The name is the export name (`notifySubscribers`),
 * stamped by `JobsModule.forFeature`; the body is `PostsJobs.notifySubscribers`.
 */
export const notifySubscribers = job({
  input: t.object({ postId: t.uuid, orgId: t.uuid }),
  idempotencyKey: ({ postId }) => `notify:${postId}`,
  tenant: ({ orgId }) => orgId,
  retry: { attempts: 5, backoff: 'exponential' },
});
