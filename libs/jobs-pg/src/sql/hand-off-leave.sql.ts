/**
 * A worker's registrations for the hand-off removed (`SQL_HAND_OFF_REGISTER`): $1 worker id. Sent when it stops, before
 * it waits for the rows handed to it until then; no enqueue committing after this hands it anything.
 */
export const SQL_HAND_OFF_LEAVE = `
delete from x_job_hand_offs h where h.worker_id = $1::text
`;
