import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * The dashboard's admin password, hashed with scrypt (node:crypto, no native addon). The parameters are kept
 * in the hash, so they can be raised later without invalidating stored passwords.
 * N = 2^15, r = 8: about 60 ms and 32 MiB per check here, slow enough to make guessing expensive.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SETTING = 'admin_password_hash';

/**
 * Where the admin password's hash is kept, and the sessions a new password ends: the store's
 * `admin` queries.
 */
export interface AdminSettings {
  getSetting(key: string): Promise<string | undefined>;
  /** With `onlyIfMissing`, keeps an existing value and returns false. */
  putSetting(key: string, value: string, options?: { onlyIfMissing?: boolean }): Promise<boolean>;
  deleteAllSessions(): Promise<void>;
}

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      KEY_LENGTH,
      { ...options, maxmem: 128 * (options.N ?? 1) * (options.r ?? 8) * 2 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** No look-alikes (l, I, O, 0, 1): 57 letters, so 20 of them hold about 116 bits. */
const ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Bytes at or above this are dropped, so that every letter is equally likely. */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

export function generatePassword(length = 20): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(2 * length)) {
      if (byte >= UNBIASED_BELOW) continue;
      out += ALPHABET[byte % ALPHABET.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export async function adminPasswordHash(settings: AdminSettings): Promise<string | undefined> {
  return settings.getSetting(SETTING);
}

/**
 * Makes sure the dashboard has an admin password. `AGENTJOBS_ADMIN_PASSWORD`, when set, wins and
 * is stored (hashed) if it differs from the stored one. Without it, the first process to start on
 * a database generates one and returns it, so the caller can show it once; later starts and other
 * processes find it stored and return null.
 */
export async function ensureAdminPassword(
  settings: AdminSettings,
  configured: string | null,
): Promise<{ generated: string | null }> {
  const stored = await adminPasswordHash(settings);
  if (configured) {
    if (!stored || !(await verifyPassword(configured, stored))) {
      await settings.putSetting(SETTING, await hashPassword(configured));
      // A changed password signs every browser out.
      if (stored) await settings.deleteAllSessions();
    }
    return { generated: null };
  }
  if (stored) return { generated: null };
  const generated = generatePassword();
  const won = await settings.putSetting(SETTING, await hashPassword(generated), { onlyIfMissing: true });
  return { generated: won ? generated : null };
}

/** Replaces the admin password (`agentjobs admin password`) and ends every session. */
export async function setAdminPassword(settings: AdminSettings, password: string): Promise<void> {
  await settings.putSetting(SETTING, await hashPassword(password));
  await settings.deleteAllSessions();
}
