/**
 * Migration 0013: `x_jobs` pages are filled to half by inserts (`fillfactor = 50`), so a claim's and an ack's new row
 * version lands on the page of the version it replaces.
 *
 * A claim and an ack each move `state`, which the partial indexes cover, so neither update is HOT: each writes a new
 * row version and its index entries. Where that version goes is the page's free space. Filled to the brim (the
 * default, 100), the page of a freshly enqueued row has none: the claim puts the running version on another page, and
 * to do so first marks the old version locked in a WAL record of its own, then writes the update touching two pages
 * (the heap's `LOCK` and `UPDATE` records, counted with `pg_walinspect` over claims and acks of 50,000 rows: 2.0 and
 * 1.0 `LOCK` records a row, 1.0 for the claim's `for update` alone). With half of each page free, the running version
 * fits beside the ready one, and by the ack the ready one is dead and pruned, so the done version fits too: 1.13 and 0
 * `LOCK` records a row. Over whole drains of 50,000 jobs through a worker, WAL per job went from ~1,040 bytes to ~860.
 *
 * What it costs: inserts fill a new page only halfway, so a backlog of waiting rows spans about twice the heap pages
 * (the indexes are unchanged). A queue table is rewritten by its own traffic anyway: after a drain of 50,000 jobs the
 * heap measured 22 MB against 24 MB at the default, as every update had left its page.
 *
 * Setting a storage parameter rewrites nothing and takes a lock that lets reads and writes go on; pages already
 * written keep their layout until they are rewritten (a `vacuum full` or `cluster` applies it to them too, but is not
 * needed: new pages follow it from the migration on).
 */
export const MIGRATION_0013_JOBS_FILLFACTOR = `
alter table x_jobs set (fillfactor = 50);
`;
