/** The channel `SQL_OUTBOX_STAGE` notifies when a commit leaves a row waiting: LISTEN on it and call `relay.wake()`. */
export const OUTBOX_WAKE_CHANNEL = 'x_outbox_wake';
