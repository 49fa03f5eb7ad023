import { CLAIM_REPLY_FIELDS } from '../src/lua/claim-pack.lua';

/**
 * A row packed as the claim's packRow (and the hand-off's packFresh) packs it: the key id's length and the id, the
 * presence mask, then the answered fields' values in their order ('' for an absent one).
 */
export function packedRow(id: string, values: Partial<Record<string, string>>): string {
  let mask = 0;
  const out = CLAIM_REPLY_FIELDS.map((field, i) => {
    const v = values[field];
    if (v === undefined) return '';
    mask += 2 ** i;
    return v;
  });
  return `${id.length}\u0000${id}\u0000${mask}\u0000${out.join('\u0000')}`;
}
