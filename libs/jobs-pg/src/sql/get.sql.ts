/** Reads one job. $1 id. Returns its `x_jobs` row, or none. */
export const SQL_GET = `
select j.* from x_jobs j where j.id = $1::uuid
`;
