import 'reflect-metadata';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';

/** The table the backfill specs sweep: an id, a title, the slug a sweep writes, and how often a row was handled. */
@Entity('bf_posts')
export class BfPost {
  @PrimaryColumn('int')
  id!: number;

  @Column('text')
  title!: string;

  @Column('text', { nullable: true })
  slug!: string | null;

  @Column('boolean', { default: true })
  published!: boolean;

  @Column('int', { default: 0 })
  handled!: number;
}

/** A DataSource over `url` with {@link BfPost}, its table created. */
export async function postsDataSource(url: string): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    entities: [BfPost],
    synchronize: true,
  });
  await dataSource.initialize();
  return dataSource;
}

/** Replaces the table's rows with ids 1…n (every third unpublished). */
export async function seedPosts(dataSource: DataSource, n: number): Promise<void> {
  await dataSource.query('truncate bf_posts');
  await dataSource.query(
    `insert into bf_posts (id, title, published)
     select g, 'Post ' || g, g % 3 <> 0 from generate_series(1, $1::int) g`,
    [n],
  );
}

/** The slug a sweep writes for a title. */
export const slugOf = (title: string): string => title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
