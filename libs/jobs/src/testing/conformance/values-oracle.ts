/**
 * What the value contract answers, worked out again here one code unit at a time — on purpose not through the
 * contract's own functions, so a property compares a driver with a second reading of the rules, not with itself.
 */

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** Whether `text` holds a NUL or a surrogate that is not half of a pair. */
export function hasNulOrLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return true;
    if (isHigh(unit)) {
      if (!isLow(text.charCodeAt(i + 1))) return true;
      i++;
    } else if (isLow(unit)) {
      return true;
    }
  }
  return false;
}

/** Whether a driver must store `text` in a field of at most `max` code units (`''` where `empty` allows it). */
export function storableText(text: string, max: number, empty: boolean): boolean {
  if (text.length === 0) return empty;
  return text.length <= max && !hasNulOrLoneSurrogate(text);
}

/** `text` with each NUL and each lone surrogate replaced by U+FFFD. */
export function sanitised(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0 || isLow(unit)) out += '\ufffd';
    else if (!isHigh(unit)) out += text[i];
    else if (isLow(text.charCodeAt(i + 1))) out += text.slice(i, ++i + 1);
    else out += '\ufffd';
  }
  return out;
}

/** Whether a whole number in [min, max]. */
export function wholeIn(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

/** Whether `name` is a queue or job name: letters, digits and `. _ : -`, not starting with a symbol, ≤ `max`. */
export function isDeclaredName(name: string, max: number): boolean {
  if (name.length === 0 || name.length > max) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name[i] as string;
    const alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && (i === 0 || !'._:-'.includes(c))) return false;
  }
  return true;
}
