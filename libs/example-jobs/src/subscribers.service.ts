import { Injectable, Logger } from '@nestjs/common';

/** One subscriber of an org's posts (plain JSON: a notification step stores it in its output). */
export interface Subscriber {
  readonly id: string;
  readonly email: string;
}

/** One notification that was sent: who was told about which post. */
export interface PostNotification {
  readonly postId: string;
  readonly orgId: string;
  readonly subscriberId: string;
  readonly to: string;
}

/** The subscribers every org of the example has: three, kept in memory. */
export const EXAMPLE_SUBSCRIBERS: readonly Subscriber[] = [
  { id: '0190c1d2-7e3f-7a40-9b00-000000000001', email: 'ada@subscribers.example' },
  { id: '0190c1d2-7e3f-7a40-9b00-000000000002', email: 'grace@subscribers.example' },
  { id: '0190c1d2-7e3f-7a40-9b00-000000000003', email: 'linus@subscribers.example' },
];

/** Subscribers and the notifications sent to them, kept in memory: a stand-in for a table and a mail provider. */
@Injectable()
export class SubscribersService {
  private readonly logger = new Logger(SubscribersService.name);
  /** Every notification sent, oldest first. */
  readonly sent: PostNotification[] = [];

  /** The subscribers of `orgId`'s posts. Asynchronous, as a query would be. */
  list(_orgId: string): Promise<readonly Subscriber[]> {
    return Promise.resolve(EXAMPLE_SUBSCRIBERS);
  }

  /** Tells one subscriber about a new post (here: records and logs it). */
  notify(subscriber: Subscriber, post: { postId: string; orgId: string }): PostNotification {
    const notification: PostNotification = {
      postId: post.postId,
      orgId: post.orgId,
      subscriberId: subscriber.id,
      to: subscriber.email,
    };
    this.sent.push(notification);
    this.logger.log(`notified ${subscriber.email} of post ${post.postId}`);
    return notification;
  }
}
