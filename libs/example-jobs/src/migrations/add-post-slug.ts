import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Adds `posts.slug`, nullable: the column lands in one cheap statement, and the `posts.slug` backfill — which
 * `requires` this migration — fills the existing rows afterwards, in throttled pages, with no maintenance window.
 */
export class AddPostSlug1796000100000 implements MigrationInterface {
  readonly name = 'AddPostSlug1796000100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`alter table "posts" add column if not exists "slug" text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`alter table "posts" drop column "slug"`);
  }
}
