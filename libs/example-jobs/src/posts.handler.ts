import { Injectable } from '@nestjs/common';
import { Job, type JobRunArgs } from '@ultimat3/jobs';
import { notifySubscribers } from './posts.jobs';
import { SubscribersService } from './subscribers.service';

/** The body of `notifySubscribers`. */
@Injectable()
export class PostsJobs {
  constructor(private readonly subscribers: SubscribersService) {}

  /**
   * Lists the org's subscribers once per run, then notifies each in a step named by the subscriber: a retried
   * attempt notifies none it already did.
   */
  @Job(notifySubscribers)
  async notifySubscribers({ input, step }: JobRunArgs<typeof notifySubscribers>): Promise<void> {
    const subscribers = await step.run('list', () => this.subscribers.list(input.orgId));
    for (const subscriber of subscribers) {
      await step.run(`notify:${subscriber.id}`, () => this.subscribers.notify(subscriber, input));
    }
  }
}
