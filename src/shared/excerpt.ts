/**
 * Excerpts cut on a character, never inside one (issue: the inspector's 4,096-character cut
 * split an emoji's surrogate pair, leaving a lone surrogate that shows as U+FFFD, or as a
 * `\ud83d` escape in JSON).
 */

/** The first `max` UTF-16 units of `text` at most, ending on a code point: a pair at the edge is left out whole. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const next = text.charCodeAt(max);
  const splitsPair = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
  return text.slice(0, splitsPair ? max - 1 : max);
}

/** The first `max` bytes of UTF-8 `bytes` at most, ending on a character: a character at the edge is left out whole. */
export function cutUtf8(bytes: Uint8Array, max: number): Uint8Array {
  if (bytes.length <= max) return bytes;
  let end = max;
  // A continuation byte (10xxxxxx) at the cut belongs to a character begun before it: cut before
  // that character's first byte (at most 3 back: a character has at most 4 bytes).
  for (let back = 0; back < 3 && end > 0 && (bytes[end]! & 0xc0) === 0x80; back++) end--;
  return bytes.subarray(0, end);
}
