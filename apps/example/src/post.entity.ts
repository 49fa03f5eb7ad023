import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A post an org published: the example's business row, written in the same transaction as its job. */
@Entity('posts')
@Index(['orgId', 'publishedAt'])
export class Post {
  /** Minted by the app before the insert, so the job it enqueues can name it. */
  @PrimaryColumn('uuid')
  id!: string;

  /** The org that published it: the tenant of its `notifySubscribers` job. */
  @Column('uuid', { name: 'org_id' })
  orgId!: string;

  /** What the org called it. */
  @Column('text')
  title!: string;

  /** When the request that published it ran (the row exists only once that request's transaction committed). */
  @Column('timestamptz', { name: 'published_at' })
  publishedAt!: Date;
}
