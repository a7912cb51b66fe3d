import { describe, expect, it } from 'vitest';
import { addressRefusal } from './webhook-address.js';

const HINT = ' (AGENTJOBS_WEBHOOK_ALLOW_PRIVATE=true allows it)';

describe('addressRefusal', () => {
  it.each([
    // [address, refusal by default, refusal with private targets allowed]
    ['8.8.8.8', null, null],
    ['2606:4700::1111', null, null],
    ['127.0.0.1', `a loopback address${HINT}`, null],
    ['0.0.0.0', `a loopback address${HINT}`, null],
    ['::', `a loopback address${HINT}`, null],
    ['10.0.0.1', `a private address${HINT}`, null],
    ['100.64.1.1', `a private address${HINT}`, null],
    ['fd12:3456::1', `a private address${HINT}`, null],
    ['169.254.169.254', 'a metadata address', 'a metadata address'],
    ['fd00:ec2::254', 'a metadata address', 'a metadata address'],
    ['169.254.1.1', 'a link-local address', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address', 'a link-local address'],
    ['fec0::1', 'a site-local address', 'a site-local address'],
    ['255.255.255.255', 'a reserved address', 'a reserved address'],
    ['240.0.0.1', 'a reserved address', 'a reserved address'],
    ['ff02::1', 'a reserved address', 'a reserved address'],
    ['100::1', 'a reserved address', 'a reserved address'],
    ['2001:db8::1', 'a reserved address', 'a reserved address'],
    // NAT64, the well-known prefix: the IPv4 address in the last 32 bits.
    ['64:ff9b::a9fe:a9fe', 'a NAT64 address for 169.254.169.254, a metadata address', 'same'],
    ['64:ff9b::a00:1', `a NAT64 address for 10.0.0.1, a private address${HINT}`, null],
    ['64:ff9b::808:808', null, null],
    // NAT64, the local-use prefix: private, and refused outright if any place holds a refused address.
    ['64:ff9b:1:a9fe:a9:fe00::', 'a local-use NAT64 address for 169.254.169.254, a metadata address', 'same'],
    ['64:ff9b:1:a9:fe:a9fe::', 'a local-use NAT64 address for 169.254.169.254, a metadata address', 'same'],
    [
      '64:ff9b:1:0:a9:fea9:fe00:0',
      'a local-use NAT64 address for 169.254.169.254, a metadata address',
      'same',
    ],
    ['64:ff9b:1::a9fe:a9fe', 'a local-use NAT64 address for 169.254.169.254, a metadata address', 'same'],
    ['64:ff9b:1:808:8:800::', `a local-use NAT64 address, a private address${HINT}`, null],
    ['2002:a9fe:a9fe::1', 'a 6to4 address for 169.254.169.254, a metadata address', 'same'],
    ['2002:7f00:1::1', `a 6to4 address for 127.0.0.1, a loopback address${HINT}`, null],
    ['2002:808:808::1', null, null],
    // Teredo: the client's address with its bits flipped, and the server's.
    [
      '2001:0:4136:e378:8000:63bf:5601:5601',
      'a Teredo address for 169.254.169.254, a metadata address',
      'same',
    ],
    [
      '2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7',
      'a Teredo address for 169.254.169.254, a metadata address',
      'same',
    ],
    ['2001:0:808:808:8000:63bf:f7f7:f7f7', null, null],
    ['::ffff:127.0.0.1', `an IPv4-mapped address for 127.0.0.1, a loopback address${HINT}`, null],
    ['::ffff:a9fe:a9fe', 'an IPv4-mapped address for 169.254.169.254, a metadata address', 'same'],
    ['::ffff:0:a9fe:a9fe', 'a SIIT address for 169.254.169.254, a metadata address', 'same'],
    ['::ffff:0:808:808', null, null],
    ['::a9fe:a9fe', 'an IPv4-compatible address for 169.254.169.254, a metadata address', 'same'],
    ['::a00:1', `an IPv4-compatible address for 10.0.0.1, a private address${HINT}`, null],
    ['::808:808', null, null],
    ['not an address', 'not an IP address', 'not an IP address'],
  ])('%s', (address, strict, allowing) => {
    expect(addressRefusal(address, false)).toBe(strict);
    expect(addressRefusal(address, true)).toBe(allowing === 'same' ? strict : allowing);
  });
});
