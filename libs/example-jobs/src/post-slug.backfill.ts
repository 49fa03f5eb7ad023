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
 * across every org (`tenant: 'none'`); the gate refuses it until the migration is applied. `handle` writes a value
 * derived from the row alone, so a page handed twice (a crash between its last row and its checkpoint) writes it again
 * unchanged.
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

  /** The posts with no slug: read anew for every page, after the last page's cursor. */
  source(): SelectQueryBuilder<Post> {
    return this.posts.createQueryBuilder('post').where('post.slug is null');
  }

  /** One page: every row's slug in one statement. */
  async handle({ rows }: BackfillHandleArgs<Post>): Promise<void> {
    if (rows.length === 0) return;
    await this.posts.upsert(
      rows.map((post) => ({ ...post, slug: slugOf(post) })),
      ['id'],
    );
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
