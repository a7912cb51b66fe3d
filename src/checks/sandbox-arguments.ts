/**
 * The bubblewrap command line of the sandbox (sandbox.ts says what it promises): the namespaces,
 * the user, the environment, the read-only system folders and the part of `/etc` programs need,
 * the sized tmpfs of `/tmp` and of the checkout, and the project's environment laid in.
 */
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { type Layer, layerArguments } from './sandbox-layers.js';
import { networkArguments } from './sandbox-network.js';

/** Where the checkout appears inside the sandbox. */
export const SANDBOX_CHECKOUT = '/checkout';
/** Where the checkout folder is mounted, read-only, to be copied into the sized `/checkout`. */
export const CHECKOUT_SOURCE = '/.checkout-source';
/** The user the command runs as inside: `nobody`, which owns nothing there but what it writes. */
export const SANDBOX_UID = 65534;

/** Parts of `/etc` that programs need to start; the rest of it stays out. */
const ETC_ENTRIES = [
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'host.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl',
  'ca-certificates',
  'localtime',
  'mime.types',
  'os-release',
  'debian_version',
];

/** Top-level system folders: read-only binds, or the same links when they are links (merged /usr). */
const SYSTEM_ENTRIES = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/** What a run adds to the sandbox's usual arguments. */
export interface SandboxExtras {
  network?: boolean | undefined;
  /** Entries to lay into the checkout: their name there, and where they are (see `environmentLayers`). */
  layers?: Layer[];
}

/** The bubblewrap arguments for `dir`, built once per call from what this machine has. */
export function bwrapArguments(dir: string, diskBytes: number, extras: SandboxExtras = {}): string[] {
  // Every namespace, the network's too: the setup command's network is attached to its own
  // (sandbox-network.ts), never the host's.
  const args = [
    '--unshare-all',
    '--unshare-user',
    ...(extras.network ? networkArguments() : []),
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/local/bin:/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/tmp',
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'CI',
    '1',
  ];
  for (const entry of SYSTEM_ENTRIES) {
    const path = `/${entry}`;
    if (!existsSync(path)) continue;
    if (lstatSync(path).isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else args.push('--ro-bind', path, path);
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  const size = String(diskBytes);
  args.push('--proc', '/proc', '--dev', '/dev', '--size', size, '--tmpfs', '/tmp');
  args.push('--ro-bind', dir, CHECKOUT_SOURCE, '--size', size, '--tmpfs', SANDBOX_CHECKOUT);
  args.push(...layerArguments(extras.layers ?? [], SANDBOX_CHECKOUT, size));
  args.push('--chdir', SANDBOX_CHECKOUT);
  return args;
}
