import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The name TypeORM's naming strategy gave the `(org_id, published_at)` index when `synchronize` made the table. */
const SYNCHRONIZED_INDEX = 'IDX_2baae92a4e861a8fd87e1f7a60';

/**
 * The `posts` table as the example first shipped it. `if not exists`: a database the example created before it had
 * migrations (TypeORM `synchronize`) already holds the table, and adopting it is this migration's whole work there.
 */
export class CreatePosts1796000000000 implements MigrationInterface {
  readonly name = 'CreatePosts1796000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `create table if not exists "posts" (
        "id" uuid primary key,
        "org_id" uuid not null,
        "title" text not null,
        "published_at" timestamptz not null
      )`,
    );
    // the index synchronize made under TypeORM's generated name: adopted under the entity's, not built twice
    await runner.query(
      `alter index if exists "${SYNCHRONIZED_INDEX}" rename to "posts_org_id_published_at_idx"`,
    );
    await runner.query(
      `create index if not exists "posts_org_id_published_at_idx" on "posts" ("org_id", "published_at")`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`drop table "posts"`);
  }
}
