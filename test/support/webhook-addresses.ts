/**
 * IPv6 addresses that lead to an IPv4 address, or to a site's own network, one row per form: the
 * save path (API, dashboard, CLI) and the delivery path must refuse each alike.
 */
export interface AddressRow {
  /** The form, as the refusal names it. */
  form: string;
  address: string;
  /** Still refused with AGENTJOBS_WEBHOOK_ALLOW_PRIVATE (metadata, site-local): only loopback passes. */
  refusedWhenAllowed: boolean;
  /** The clause the refusal says after "The URL is not allowed: …". */
  says: string;
}

export const embeddedAddressRows: AddressRow[] = [
  {
    form: 'NAT64 64:ff9b::/96 to metadata',
    address: '64:ff9b::a9fe:a9fe',
    refusedWhenAllowed: true,
    says: 'a NAT64 address for 169.254.169.254, a metadata address',
  },
  {
    form: 'NAT64 64:ff9b::/96 to loopback',
    address: '64:ff9b::7f00:1',
    refusedWhenAllowed: false,
    says: 'a NAT64 address for 127.0.0.1, a loopback address',
  },
  {
    form: 'NAT64 64:ff9b:1::/48, the IPv4 last',
    address: '64:ff9b:1::a9fe:a9fe',
    refusedWhenAllowed: true,
    says: 'a local-use NAT64 address for 169.254.169.254, a metadata address',
  },
  {
    form: 'NAT64 64:ff9b:1::/48, the IPv4 after the /48',
    address: '64:ff9b:1:a9fe:a9:fe00::',
    refusedWhenAllowed: true,
    says: 'a local-use NAT64 address for 169.254.169.254, a metadata address',
  },
  {
    form: '6to4 2002::/16 to metadata',
    address: '2002:a9fe:a9fe::1',
    refusedWhenAllowed: true,
    says: 'a 6to4 address for 169.254.169.254, a metadata address',
  },
  {
    form: '6to4 2002::/16 to a private address',
    address: '2002:a00:1::1',
    refusedWhenAllowed: false,
    says: 'a 6to4 address for 10.0.0.1, a private address',
  },
  {
    // The client's IPv4 is stored with every bit flipped: 5601:5601 is 169.254.169.254.
    form: 'Teredo 2001::/32 to metadata',
    address: '2001:0:4136:e378:8000:63bf:5601:5601',
    refusedWhenAllowed: true,
    says: 'a Teredo address for 169.254.169.254, a metadata address',
  },
  {
    form: 'Teredo 2001::/32 to loopback',
    address: '2001:0:4136:e378:8000:63bf:80ff:fffe',
    refusedWhenAllowed: false,
    says: 'a Teredo address for 127.0.0.1, a loopback address',
  },
  {
    form: 'IPv4-mapped ::ffff:0:0/96 to metadata',
    address: '::ffff:a9fe:a9fe',
    refusedWhenAllowed: true,
    says: 'an IPv4-mapped address for 169.254.169.254, a metadata address',
  },
  {
    form: 'SIIT ::ffff:0:0:0/96 to metadata',
    address: '::ffff:0:a9fe:a9fe',
    refusedWhenAllowed: true,
    says: 'a SIIT address for 169.254.169.254, a metadata address',
  },
  {
    form: 'SIIT ::ffff:0:0:0/96 to loopback',
    address: '::ffff:0:7f00:1',
    refusedWhenAllowed: false,
    says: 'a SIIT address for 127.0.0.1, a loopback address',
  },
  {
    form: 'IPv4-compatible ::/96 to metadata',
    address: '::a9fe:a9fe',
    refusedWhenAllowed: true,
    says: 'an IPv4-compatible address for 169.254.169.254, a metadata address',
  },
  {
    form: 'IPv4-compatible ::/96 to loopback',
    address: '::7f00:1',
    refusedWhenAllowed: false,
    says: 'an IPv4-compatible address for 127.0.0.1, a loopback address',
  },
  {
    form: 'site-local fec0::/10',
    address: 'fec0::1',
    refusedWhenAllowed: true,
    says: 'a site-local address',
  },
];

/** The same forms around public IPv4 addresses: not refused, so the check does not overreach. */
export const publicEmbeddedAddresses = ['64:ff9b::808:808', '2002:808:808::1', '::ffff:0:808:808'];
