/** Removes a worker's `x_workers` row on a clean stop. $1 id. */
export const SQL_WORKER_LEAVE = `
delete from x_workers where id = $1::text
`;
