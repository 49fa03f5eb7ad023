import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Backfill, backfillHandleOf, type BackfillHandleArgs } from '@ultimat3/jobs';
import { IsNull, type Repository, type SelectQueryBuilder } from 'typeorm';
import { ADD_POST_SLUG_MIGRATION } from './migrations';
import { Post } from './post.entity';

/** The backfill's name: its job name, its idempotency key and its ledger name. */
export const POST_SLUG_BACKFILL = 'posts.slug';

const MAX_SLUG = 60;

/**
 * One page's slugs, one statement: `$1` the page's post ids (uuid[]), `$2` their slugs (text[]) in the same order.
 * An UPDATE, not an upsert: the page's rows carry only `id` and `title`, and an INSERT of such a partial row fails
 * `NOT NULL` (org_id, published_at) before any conflict is looked at. Two arrays unnested side by side keep the
 * statement's text and parameter count the same for every page size.
 */
const SET_SLUGS = `update posts set slug = page.slug
  from unnest($1::uuid[], $2::text[]) as page(id, slug)
  where posts.id = page.id`;

/**
 * A post's slug: its title without accents and lower-cased, every run of other characters than a–z and 0–9 one `-`,
 * at most 60 of them, then the first 8 characters of its id, so two posts with one title never share a slug.
 */
export function slugOf(post: Pick<Post, 'id' | 'title'>): string {
  const words = post.title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // the accents NFKD split off: é → e
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG)
    .replace(/^-+|-+$/g, '');
  const suffix = post.id.slice(0, 8);
  return words === '' ? suffix : `${words}-${suffix}`;
}

/**
 * Fills `posts.slug` for every post that has none: the rows written before the `AddPostSlug` migration added the
 * column, and those the web app writes without one. Swept by the worker in keyset pages of 500 at 10 pages a second,
 * across every org (`tenant: 'none'`); the gate refuses it until the migration is applied. A page reads only the
 * columns `handle` needs (`id`, the key, and `title`): the worker parses and hydrates fewer values a page, which keeps a
 * request that process serves closer to its idle latency. `handle` writes a value derived from the row alone, so a page
 * handed twice (a crash between its last row and its checkpoint) writes it again unchanged.
 */
@Backfill({
  name: POST_SLUG_BACKFILL,
  batch: 500,
  rate: 10,
  tenant: 'none',
  requires: ADD_POST_SLUG_MIGRATION,
})
@Injectable()
export class PostSlugBackfill {
  constructor(@InjectRepository(Post) private readonly posts: Repository<Post>) {}

  /**
   * The posts with no slug, as their `id` (the key the pages resume after) and `title` only: read anew for every page,
   * after the last page's cursor.
   */
  source(): SelectQueryBuilder<Post> {
    return this.posts
      .createQueryBuilder('post')
      .select(['post.id', 'post.title'])
      .where('post.slug is null');
  }

  /** One page: every row's slug in one UPDATE of exactly the page's ids. */
  async handle({ rows }: BackfillHandleArgs<Pick<Post, 'id' | 'title'>>): Promise<void> {
    if (rows.length === 0) return;
    await this.posts.manager.query(SET_SLUGS, [rows.map((post) => post.id), rows.map(slugOf)]);
  }

  /** The same predicate as `source`, counted: 0 once the pass ran out (else `X_BACKFILL_STALLED`). */
  count(): Promise<number> {
    return this.posts.count({ where: { slug: IsNull() } });
  }
}

/**
 * The `posts.slug` backfill's handle: what a trigger enqueues, and what `x db backfill --app
 * libs/example-jobs/dist/index.js` finds among this package's exports (`--pending`, `posts.slug --write`).
 */
export const postSlugBackfill = backfillHandleOf(PostSlugBackfill);
