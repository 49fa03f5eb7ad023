/** Frees the holder's slot of a key; a no-op when it holds none. $1 key, $2 holder. Returns nothing. */
export const SQL_LEASE_RELEASE = `
delete from x_job_leases l where l.key = $1::text and l.holder = $2::text
`;
