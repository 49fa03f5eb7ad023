import { CHECK, INVALID, type Invalid, type IssuePath, Schema, type TIssue } from './base';
import { describe } from './describe';

/** The canonical 8-4-4-4-12 hexadecimal form, any version or variant, either letter case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Accepts a UUID string in canonical form (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hexadecimal,
 * any version, upper or lower case) and returns it unchanged; `t.uuid`.
 */
export class UuidSchema extends Schema<string> {
  /** Prefer `t.uuid`. */
  constructor() {
    super();
    Object.freeze(this);
  }

  /** @internal */
  [CHECK](value: unknown, path: IssuePath, issues: TIssue[]): string | Invalid {
    if (typeof value === 'string' && UUID.test(value)) return value;
    issues.push({ message: `expected a UUID, got ${describe(value)}`, path });
    return INVALID;
  }
}

/** Accepts a canonical UUID string (`t.uuid`). */
export const uuid: UuidSchema = new UuidSchema();
