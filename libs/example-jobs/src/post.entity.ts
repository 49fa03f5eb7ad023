import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A post an org published: the example's business row, written in the same transaction as its job. Shared by the web
 * app (which writes it) and the worker (whose `posts.slug` backfill sweeps it). The table is the example's TypeORM
 * migrations' ({@link EXAMPLE_MIGRATIONS}), never `synchronize`.
 */
@Entity('posts')
@Index('posts_org_id_published_at_idx', ['orgId', 'publishedAt'])
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

  /**
   * The post's URL slug, derived from its title: added by the `AddPostSlug` migration, null until the `posts.slug`
   * backfill ({@link PostSlugBackfill}) fills it.
   */
  @Column('text', { nullable: true })
  slug!: string | null;
}
