/** Resumes a queue; a no-op when it was not paused. $1 queue. Returns nothing. */
export const SQL_QUEUE_RESUME = `
delete from x_queue_pauses p where p.queue = $1::text
`;
