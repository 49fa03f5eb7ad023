/**
 * Proves the database answers: no table, no lock, one round trip. No parameters; returns one row. The health check's
 * `driver` probe (`JobDriver.ping`), bounded by the caller's timeout.
 */
export const SQL_PING = `
select 1 as ok
`;
