/** A port nothing listens on right now: bind port 0 on loopback, read it, let it go (see `free-port.mjs`). */
export function freePort(): Promise<number>;
