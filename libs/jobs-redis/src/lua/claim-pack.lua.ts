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

const positions = CLAIM_REPLY_FIELDS.map((f, i) => `${f} = ${i + 4}`).join(', ');
const bits = CLAIM_REPLY_FIELDS.map((f, i) => `${f} = ${2 ** i}`).join(', ');
const blanks = CLAIM_REPLY_FIELDS.map(() => "''").join(', ');

/**
 * The fields `insertAt` (enqueue-core) writes first, in its order: a row hash small enough to be stored as a listpack
 * answers HGETALL in insertion order, so a row the driver wrote lists these at fixed places.
 */
const INSERTED = ['id', 'run', 'name', 'q', 'input', 'key', 'st', 'att', 'max', 'pri', 'at', 'ca'];
/** The test that v lists the {@link INSERTED} fields at their places (names are interned: each a pointer compare). */
const inserted = INSERTED.map((f, i) => `v[${2 * i + 1}] == '${f}'`).join(' and ');
/** The presence mask of the {@link INSERTED} fields that the reply answers. */
const insertedMask = CLAIM_REPLY_FIELDS.reduce(
  (m, f, i) => (INSERTED.includes(f) ? m + 2 ** i : m),
  0,
);
/** The reply fields `insertAt` does not write first: each read into a local of its own by the fast path's walk. */
const LATER = CLAIM_REPLY_FIELDS.filter((f) => !INSERTED.includes(f));
/** The fast path's local holding a {@link LATER} field's value (prefixed: no clash with a name of the script's). */
const local = (f: ClaimReplyField): string => `pk_${f}`;
/** The fast path's walk over the fields after the inserted ones: each {@link LATER} field into its local. */
const walkLater = LATER.map(
  (f, i) => `${i === 0 ? 'if' : 'elseif'} f == '${f}' then ${local(f)} = v[j + 1]`,
).join(' ');
/** The presence mask's part of the {@link LATER} fields the hash holds. */
const laterMask = LATER.map(
  (f) => `if ${local(f)} then mask = mask + ${2 ** CLAIM_REPLY_FIELDS.indexOf(f)} end`,
).join('\n  ');
/** The packed values in reply order, one concatenation: an inserted field by place, a later one from its local. */
const packedValues = CLAIM_REPLY_FIELDS.map((f) =>
  INSERTED.includes(f) ? `v[${2 * INSERTED.indexOf(f) + 2}]` : `(${local(f)} or '')`,
).join(" .. '\\0' .. ");
/** Lua's index of a reply field's value in the packed list. */
const at = (f: ClaimReplyField): number => CLAIM_REPLY_FIELDS.indexOf(f) + 4;

/**
 * Not a script: `packText(n)`, a number as text, cached per script call (the cache `PACK_TEXT`): a number turned into
 * text is a sprintf, so each length or mask is formatted once a call, not once a row.
 */
export const LUA_PACK_TEXT = `
local PACK_TEXT = {}
local function packText(n)
  local t = PACK_TEXT[n]
  if t == nil then
    t = tostring(n)
    PACK_TEXT[n] = t
  end
  return t
end
`;

/** The fields a fresh row may hold or not (an enqueue's optional ones): `packFresh`'s NUL-or-value arguments. */
const FRESH_OPTIONAL: readonly ClaimReplyField[] = ['ten', 'by', 'ck', 'tp', 'xr'];
/**
 * Where `packFresh` takes each reply field of a fresh row from: a local of its (an argument, or the prelude's
 * `NOW_TEXT`), a constant's text (`{ text }`), or absent (null: packed as '', its bit off).
 */
const FRESH_SOURCE: Readonly<Record<ClaimReplyField, string | { text: string } | null>> = {
  run: 'run',
  name: 'name',
  q: 'q',
  input: 'input',
  key: 'key',
  ten: 'ten',
  by: 'by',
  att: { text: '0' },
  max: 'max',
  pri: 'pri',
  at: 'at',
  ca: 'NOW_TEXT',
  err: null,
  pg: null,
  ck: 'ck',
  tp: 'tp',
  fin: null,
  xr: 'xr',
};
/** The presence mask of the fields every fresh row holds. */
const freshMask = CLAIM_REPLY_FIELDS.reduce(
  (m, f, i) => (FRESH_SOURCE[f] !== null && !FRESH_OPTIONAL.includes(f) ? m + 2 ** i : m),
  0,
);
/** Each optional field: absent (NUL) packs as '', present adds its bit to the mask. */
const freshOptional = FRESH_OPTIONAL.map(
  (f) =>
    `if ${f} == '\\0' then ${f} = '' else mask = mask + ${2 ** CLAIM_REPLY_FIELDS.indexOf(f)} end`,
).join('\n  ');
/**
 * The packed values of a fresh row in reply order as one concatenation, the separators and constants between two
 * locals written as one literal (Lua's `..` folds nothing).
 */
const freshValues = ((): string => {
  const parts: string[] = [];
  let literal = '';
  CLAIM_REPLY_FIELDS.forEach((f, i) => {
    const source = FRESH_SOURCE[f];
    // three digits: a NUL written '\\0' before a digit (the attempt's '0') would swallow it
    if (i > 0) literal += '\\000';
    if (source === null || typeof source === 'object') {
      literal += source?.text ?? '';
      return;
    }
    if (literal !== '') parts.push(`'${literal}'`);
    parts.push(source);
    literal = '';
  });
  if (literal !== '') parts.push(`'${literal}'`);
  return parts.join(' .. ');
})();

/**
 * Not a script: `packFresh(id, run, name, q, input, key, ten, by, max, pri, at, ck, tp, xr)`, a row the calling
 * script is inserting (an enqueue's fields, the optional ones NUL when null) packed exactly as `packRow` packs it once
 * stored — attempt 0, created at `NOW_TEXT` (the prelude's), no error, progress or finish time — without writing it
 * first and reading it back. Needs `NOW_TEXT` and {@link LUA_PACK_TEXT}.
 */
export const LUA_PACK_FRESH = `
local function packFresh(id, run, name, q, input, key, ten, by, max, pri, at, ck, tp, xr)
  local mask = ${freshMask}
  ${freshOptional}
  -- the common row's mask is written as its text: a number turned into text is a sprintf
  local maskText = (mask == ${freshMask}) and '${freshMask}' or packText(mask)
  return packText(#id) .. '\\0' .. id .. '\\0' .. maskText .. '\\0' .. ${freshValues}
end
`;

/**
 * Not a script: `packRow(v, id)`, how a claimed row leaves a script (the claim's, and any script that claims a row
 * the same way). Needs nothing of the prelude.
 *
 * `v` is the row's flat HGETALL list as stored before the claim's writes, `id` its key's id. Answers the row packed as
 * ONE string, and the fields the claim decides on (st, name, q, att, max): the length of the id, NUL, the id, NUL, the
 * presence mask (the sum of 2^(i-1) over the positions i of {@link CLAIM_REPLY_FIELDS} the hash holds), NUL, then
 * those fields' values in that order, NUL-separated, an absent one as '' (told from a stored '' by the mask).
 * Positional, so the client reads each value by where it lies, no field name sent or compared.
 *
 * A row the driver wrote lists its first fields where `insertAt` put them (a listpack hash answers in insertion
 * order): checked name by name, they are taken by place, the fields after them walked into one local each, and the
 * packed text is ONE concatenation of them — no table built a row (a table of the reply's places and `table.concat`
 * cost ~18,000 server instructions a row, most of a claim's own Lua work). Any other list (a hash stored as a
 * hashtable, for one, whose order is its own) is walked whole into a table through the field → place and field → bit
 * maps, built on the first such row of a call only (an enqueue, which may hand a row off, never pays for them).
 * Numbers are turned into text once per script call and length (the cache `PACK_TEXT`), not once per row. A stored
 * value holding a NUL (written around the driver: the value contract refuses it) adds a separator; the client tells
 * so by the count and reads that row whole.
 */
export const LUA_CLAIM_PACK = `${LUA_PACK_TEXT}
local PACK_AT, PACK_BIT
-- any list: walked whole into a table of the reply's places
local function packWhole(v, id)
  if PACK_AT == nil then
    PACK_AT = { ${positions} }
    PACK_BIT = { ${bits} }
  end
  local out, mask, st = { '', id, '', ${blanks} }, 0, nil
  for j = 1, #v, 2 do
    local f = v[j]
    local p = PACK_AT[f]
    if p then
      out[p] = v[j + 1]
      mask = mask + PACK_BIT[f]
    elseif f == 'st' then
      st = v[j + 1]
    end
  end
  out[1] = packText(#id)
  out[3] = packText(mask)
  return table.concat(out, '\\0'), st, out[${at('name')}], out[${at('q')}], out[${at('att')}], out[${at('max')}]
end
local function packRow(v, id)
  if not (${inserted}) then return packWhole(v, id) end
  local ${LATER.map(local).join(', ')}
  for j = ${2 * INSERTED.length + 1}, #v, 2 do
    local f = v[j]
    ${walkLater} end
  end
  local mask = ${insertedMask}
  ${laterMask}
  return packText(#id) .. '\\0' .. id .. '\\0' .. packText(mask) .. '\\0' .. ${packedValues},
    v[${2 * INSERTED.indexOf('st') + 2}], v[${2 * INSERTED.indexOf('name') + 2}], v[${2 * INSERTED.indexOf('q') + 2}],
    v[${2 * INSERTED.indexOf('att') + 2}], v[${2 * INSERTED.indexOf('max') + 2}]
end
`;
