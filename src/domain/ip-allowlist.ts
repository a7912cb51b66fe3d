/** IP allowlists of API keys: addresses and CIDR ranges, IPv4 and IPv6 (docs/api.md). */
import { isIP } from 'node:net';

/** One allowlist entry, ready for `BlockList.addSubnet`. */
export interface AllowlistEntry {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses an IP allowlist entry (`203.0.113.7`, `10.0.0.0/8`, `2001:db8::/32`); throws on nonsense. */
export function parseAllowlistEntry(entry: string): AllowlistEntry {
  const [address = '', prefixText] = entry.trim().split('/');
  const version = isIP(address);
  if (version === 0) throw new Error(`"${entry}" is not an IP address or CIDR range`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || !/^\d*$/.test(prefixText ?? '')) {
    throw new Error(`"${entry}" has a bad prefix length`);
  }
  return { address, prefix, family };
}
