/** The bus's clock: the database's now(), as epoch milliseconds (with microseconds as the fraction). No parameters. */
export const SQL_EVENTS_NOW = `
select extract(epoch from now()) * 1000 as now_ms`;
