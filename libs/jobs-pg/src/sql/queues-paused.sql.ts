/** Every paused queue. No parameters. Returns `(queue)` rows in code-point order. */
export const SQL_QUEUES_PAUSED = `
select p.queue from x_queue_pauses p order by p.queue collate "C"
`;
