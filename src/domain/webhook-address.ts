/**
 * Which IP addresses a webhook may be sent to. The ranges are ipaddr.js's (`range()`), so that the
 * list of special-purpose blocks is kept by people who follow the registries. IPv6 forms that carry
 * an IPv4 address (NAT64, 6to4, Teredo, IPv4-mapped, SIIT, IPv4-compatible) reach that IPv4 address
 * through a translator or tunnel, so they are judged by it: 64:ff9b::a9fe:a9fe is 169.254.169.254.
 */
import ipaddr from 'ipaddr.js';

/** Why an address is refused; loopback and private pass where private targets are allowed. */
export type AddressClass = 'loopback' | 'private' | 'link-local' | 'site-local' | 'metadata' | 'reserved';

/** Cloud metadata services: AWS/GCP/Azure/OpenStack, AWS ECS task metadata, Alibaba Cloud, AWS over IPv6. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

// ipaddr.js 2.5's range names (its typings miss some: deprecatedSiteLocal, discard, deprecatedOrchid,
// segmentRouting). A name missing here, such as one a later version adds, is refused as reserved.
// AS112 and AMT are anycast services on the public internet, so they pass like any unicast address.
const IPV4_CLASSES: Record<string, AddressClass | null> = {
  unicast: null,
  as112: null,
  amt: null,
  // 0.0.0.0/8 reaches the host itself on Linux.
  unspecified: 'loopback',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'private',
  linkLocal: 'link-local',
  multicast: 'reserved',
  broadcast: 'reserved',
  reserved: 'reserved',
};

const IPV6_CLASSES: Record<string, AddressClass | null> = {
  unicast: null,
  amt: null,
  as112v6: null,
  // :: reaches the host itself on Linux.
  unspecified: 'loopback',
  loopback: 'loopback',
  uniqueLocal: 'private',
  linkLocal: 'link-local',
  // Deprecated (RFC 3879) but still routed inside sites that kept it.
  deprecatedSiteLocal: 'site-local',
};

/** An IPv6 form that carries IPv4 addresses, and the ones it may lead to. */
interface Embedding {
  form: string;
  candidates: ipaddr.IPv4[];
  /** A prefix for use inside one network: private whatever it carries. */
  local?: boolean;
}

const ipv4At = (bytes: number[], start: number, xor = 0) =>
  new ipaddr.IPv4(bytes.slice(start, start + 4).map((byte) => byte ^ xor));

/** RFC 6052's places for the IPv4 address after a prefix of 48, 56, 64 or 96 bits (bits 64–71 stay empty). */
function rfc6052Candidates(bytes: number[]): ipaddr.IPv4[] {
  const skipU = (indexes: number[]) => new ipaddr.IPv4(indexes.map((index) => bytes[index] ?? 0));
  return [skipU([6, 7, 9, 10]), skipU([7, 9, 10, 11]), skipU([9, 10, 11, 12]), ipv4At(bytes, 12)];
}

function embedding(address: ipaddr.IPv6, range: string): Embedding | null {
  const bytes = address.toByteArray();
  switch (range) {
    case 'ipv4Mapped':
      return { form: 'IPv4-mapped', candidates: [ipv4At(bytes, 12)] };
    case 'rfc6145':
      return { form: 'SIIT', candidates: [ipv4At(bytes, 12)] };
    case 'rfc6052':
      // The well-known prefix 64:ff9b::/96 puts the address last; the local-use 64:ff9b:1::/48 may
      // be cut at any length the operator chose, so every place it could sit is judged.
      return address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)
        ? { form: 'NAT64', candidates: [ipv4At(bytes, 12)] }
        : { form: 'local-use NAT64', candidates: rfc6052Candidates(bytes), local: true };
    case '6to4':
      return { form: '6to4', candidates: [ipv4At(bytes, 2)] };
    case 'teredo':
      // The server in plain; the client, where the traffic goes, with every bit flipped (RFC 4380).
      return { form: 'Teredo', candidates: [ipv4At(bytes, 12, 0xff), ipv4At(bytes, 4)] };
    case 'unicast':
      // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291): ipaddr.js names only :: and ::1 in ::/96.
      return bytes.slice(0, 12).every((byte) => byte === 0)
        ? { form: 'IPv4-compatible', candidates: [ipv4At(bytes, 12)] }
        : null;
    default:
      return null;
  }
}

function classOf(address: ipaddr.IPv4 | ipaddr.IPv6): AddressClass | null {
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  const range: string = address.range();
  const classes = address.kind() === 'ipv4' ? IPV4_CLASSES : IPV6_CLASSES;
  return range in classes ? (classes[range] ?? null) : 'reserved';
}

const passes = (kind: AddressClass | null, allowPrivate: boolean) =>
  kind === null || (allowPrivate && (kind === 'loopback' || kind === 'private'));

const PRIVATE_HINT = ' (AGENTJOBS_WEBHOOK_ALLOW_PRIVATE=true allows it)';
const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');
const described = (kind: AddressClass) =>
  `${article(kind)} ${kind} address${kind === 'loopback' || kind === 'private' ? PRIVATE_HINT : ''}`;

/**
 * What makes `address` (an IP address) a refused receiver, as a phrase that follows the address
 * ("a loopback address", "a NAT64 address for 169.254.169.254, a metadata address"), or null when
 * it may be sent to. Loopback and private pass with `allowPrivate`; everything else never does.
 */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv6') {
    const carried = embedding(parsed as ipaddr.IPv6, parsed.range());
    if (carried) {
      const judged = carried.candidates.map((ipv4) => ({ ipv4, kind: classOf(ipv4) }));
      // A never-allowed address first, then one the setting lets through.
      const refused =
        judged.find(({ kind }) => !passes(kind, true)) ??
        (carried.local ? undefined : judged.find(({ kind }) => !passes(kind, allowPrivate)));
      const form = `${article(carried.form)} ${carried.form} address`;
      if (refused?.kind) return `${form} for ${refused.ipv4}, ${described(refused.kind)}`;
      return carried.local && !allowPrivate ? `${form}, ${described('private')}` : null;
    }
  }
  const kind = classOf(parsed);
  return passes(kind, allowPrivate) || kind === null ? null : described(kind);
}
