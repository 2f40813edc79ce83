import { BlockList, isIP } from 'node:net';
import { validationError } from '../shared/errors';

const V4_SEG = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])';
const V4 = `(?:${V4_SEG}\\.){3}${V4_SEG}`;
const V6_SEG = '(?:[0-9a-fA-F]{1,4})';
/** Node's own IPv6 grammar (lib/internal/net.js), without a zone id. */
const V6 =
  '(?:' +
  `(?:${V6_SEG}:){7}(?:${V6_SEG}|:)|` +
  `(?:${V6_SEG}:){6}(?:${V4}|:${V6_SEG}|:)|` +
  `(?:${V6_SEG}:){5}(?::${V4}|(?::${V6_SEG}){1,2}|:)|` +
  `(?:${V6_SEG}:){4}(?:(?::${V6_SEG}){0,1}:${V4}|(?::${V6_SEG}){1,3}|:)|` +
  `(?:${V6_SEG}:){3}(?:(?::${V6_SEG}){0,2}:${V4}|(?::${V6_SEG}){1,4}|:)|` +
  `(?:${V6_SEG}:){2}(?:(?::${V6_SEG}){0,3}:${V4}|(?::${V6_SEG}){1,5}|:)|` +
  `(?:${V6_SEG}:){1}(?:(?::${V6_SEG}){0,4}:${V4}|(?::${V6_SEG}){1,6}|:)|` +
  `(?::(?:(?::${V6_SEG}){0,5}:${V4}|(?::${V6_SEG}){1,7}|:))` +
  ')';
/**
 * The document's form of `isIpOrCidr` (CONTRACT §4 `ip_whitelist`): an IPv4 or IPv6 address, with
 * an optional prefix length (0-32, 0-128). The server also takes a prefix with leading zeros.
 */
export const IP_OR_CIDR_PATTERN = `^(?:${V4}(?:/(?:3[0-2]|[12][0-9]|[0-9]))?|${V6}(?:/(?:12[0-8]|1[01][0-9]|[1-9]?[0-9]))?)$`;

/** Whether `entry` is an IP address or a CIDR block (IPv4 or IPv6). */
export function isIpOrCidr(entry: string): boolean {
  try {
    addToBlockList(new BlockList(), entry, 'ip');
    return true;
  } catch {
    return false;
  }
}

export function addToBlockList(bl: BlockList, entry: string, field: string): void {
  const [addr = '', prefix, ...rest] = entry.split('/');
  const family = isIP(addr);
  if (family === 0 || rest.length > 0) throw validationError(field, `${entry} is not an IP address or CIDR block`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) {
    bl.addAddress(addr, type);
    return;
  }
  const bits = Number(prefix);
  if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) {
    throw validationError(field, `${entry} has a bad prefix length`);
  }
  bl.addSubnet(addr, bits, type);
}
