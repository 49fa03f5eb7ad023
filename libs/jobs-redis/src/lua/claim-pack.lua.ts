/**
 * The stored fields a claimed row is answered with, in their reply positions (1-based in Lua, 0-based on the client).
 * Its id is the row key's; its state, worker, claim token, lease and update time are not read from the store — the
 * claim writes them, and the client knows what it wrote — and its attempt is the stored one, the client adding the 1
 * the claim did.
 */
export const CLAIM_REPLY_FIELDS = [
  'run',
  'name',
  'q',
  'input',
  'key',
  'ten',
  'by',
  'att',
  'max',
  'pri',
  'at',
  'ca',
  'err',
  'pg',
  'ck',
  'tp',
  'fin',
  'xr',
] as const;

/** A field of {@link CLAIM_REPLY_FIELDS}. */
export type ClaimReplyField = (typeof CLAIM_REPLY_FIELDS)[number];

const positions = CLAIM_REPLY_FIELDS.map((f, i) => `${f} = ${i + 1}`).join(', ');
const bits = CLAIM_REPLY_FIELDS.map((_, i) => 2 ** i).join(', ');
const blanks = CLAIM_REPLY_FIELDS.map(() => "''").join(', ');

/**
 * Not a script: `packRow(v, id)`, how a claimed row leaves a script (the claim's, and any script that claims a row
 * the same way). Needs nothing of the prelude.
 *
 * `v` is the row's flat HGETALL list as stored before the claim's writes, `id` its key's id. Answers the row packed as
 * ONE string, and the fields the claim decides on (st, name, q, att, max), picked out in the same walk of the list:
 * `<length of id>:<id>`, NUL, the presence mask (the sum of 2^(i-1) over the positions i the hash holds), NUL, then
 * the {@link CLAIM_REPLY_FIELDS} values in that order, NUL-separated, an absent one as '' (told from a stored '' by the
 * mask). Positional, so the client reads each value by where it lies, no field name sent or compared; one field
 * lookup per entry here (the names are interned: a pointer hash). A stored value holding a NUL (written around the
 * driver: the value contract refuses it) adds a separator; the client tells so by the count and reads that row whole.
 */
export const LUA_CLAIM_PACK = `
local PACK_AT = { ${positions} }
local PACK_BIT = { ${bits} }
local function packRow(v, id)
  local out = { ${blanks} }
  local mask, st = 0, nil
  for j = 1, #v, 2 do
    local f = v[j]
    local p = PACK_AT[f]
    if p then
      out[p] = v[j + 1]
      mask = mask + PACK_BIT[p]
    elseif f == 'st' then
      st = v[j + 1]
    end
  end
  return #id .. ':' .. id .. '\\0' .. mask .. '\\0' .. table.concat(out, '\\0'), st,
    out[${CLAIM_REPLY_FIELDS.indexOf('name') + 1}], out[${CLAIM_REPLY_FIELDS.indexOf('q') + 1}],
    out[${CLAIM_REPLY_FIELDS.indexOf('att') + 1}], out[${CLAIM_REPLY_FIELDS.indexOf('max') + 1}]
end
`;
