/**
 * Every completed step of one job, in completion order.
 *
 * $1 job id.
 *
 * Returns `(name, output, no_output, attempt, started_at, completed_at)`; `no_output` is true when the step returned
 * nothing (a SQL null, apart from a stored JSON `null`, which pg decodes to the same JS null).
 */
export const SQL_STEPS_LOAD = `
select s.name, s.output, s.output is null as no_output, s.attempt, s.started_at, s.completed_at
from x_job_steps s
where s.job_id = $1::uuid
order by s.seq
`;
