import { BlockList, isIP } from 'node:net';
import { validationError } from '../shared/errors';

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
