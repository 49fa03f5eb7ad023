import { AddPostSlug1796000100000 } from './add-post-slug';
import { CreatePosts1796000000000 } from './create-posts';

export { AddPostSlug1796000100000, CreatePosts1796000000000 };

/** The example's TypeORM migrations, oldest first: append-only, run by the web app at boot (`migrationsRun`). */
export const EXAMPLE_MIGRATIONS = [CreatePosts1796000000000, AddPostSlug1796000100000];

/** The migration the `posts.slug` backfill requires: its column must exist before a page is swept. */
export const ADD_POST_SLUG_MIGRATION = 'AddPostSlug1796000100000';
