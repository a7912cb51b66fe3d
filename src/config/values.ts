import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { isModelId } from '../domain/model-id.js';

/**
 * The parsers of single environment values (numbers, durations, URLs, model ids, prices) that
 * `config.ts` builds its schema from; each fails with a message a person can act on.
 */

export const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/**
 * A proxy address or CIDR range: 10.0.0.1, 10.0.0.0/8, ::1, fd00::/8. An IPv4 address is written
 * in four decimal parts: ipaddr.js also reads `10.1` and `0x0a.0.0.1`, which no one means here.
 */
function isAddressOrRange(entry: string): boolean {
  return (
    ipaddr.IPv4.isValidFourPartDecimal(entry) ||
    ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) ||
    ipaddr.IPv6.isValid(entry) ||
    ipaddr.IPv6.isValidCIDR(entry)
  );
}

/**
 * `true`/`false`, or the proxies' addresses. With `true`, a client that reaches the service
 * without the proxy can name its own address in X-Forwarded-For; a list believes only those
 * proxies. (Fastify 5 no longer honours a hop count: it cannot check the nearest peer.)
 */
export const trustProxy = z.string().transform((value, context) => {
  const text = value.trim();
  if (/^(true|yes|1)$/i.test(text)) return true;
  if (/^(false|no|0|)$/i.test(text)) return false;
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const wrong = entries.find((entry) => !isAddressOrRange(entry));
  if (entries.length > 0 && wrong === undefined) return entries;
  // The entry at fault, cut short: the value may be anything, of any length.
  const named =
    wrong === undefined ? '' : ` ("${wrong.slice(0, 60)}${wrong.length > 60 ? '…' : ''}" is neither)`;
  context.addIssue({
    code: 'custom',
    message: `must be true, false, or the proxies’ addresses or CIDR ranges, comma-separated${named}`,
  });
  return z.NEVER;
});

export const modelId = z
  .string()
  .refine(
    isModelId,
    'must look like provider:model, e.g. anthropic:claude-sonnet-4-5, or be demo (the built-in demo model)',
  );

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `5s`, `5m`, `2h`, `1d` in milliseconds, or null when it is not one. */
function parseDuration(text: string): number | null {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  return match ? Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0) : null;
}

export const duration = (maxMs: number) =>
  z.string().transform((text, context) => {
    const ms = parseDuration(text);
    if (ms !== null && ms > 0 && ms <= maxMs) return ms;
    context.addIssue({ code: 'custom', message: 'must be a duration such as 500ms, 10s or 1m, above 0' });
    return z.NEVER;
  });

export const durationList = z.string().transform((text, context) => {
  const delays = text.split(',').map(parseDuration);
  if (delays.length <= 20 && delays.every((ms) => ms !== null)) return delays as number[];
  context.addIssue({ code: 'custom', message: 'must be durations separated by commas, e.g. 5s,5m,30m,2h' });
  return z.NEVER;
});

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value));

export const dollars = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'must be an amount in US dollars, e.g. 2.50')
  .transform(Number)
  .pipe(z.number().positive('must be more than 0'));

const perMillion = z.number().min(0);
/** `{"provider:model": {"input": 3, "output": 15, "cachedInput"?: 0.3, "cacheWrite"?: 3.75}}`, USD per million tokens. */
export const modelPrices = z.string().transform((text, context) => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    context.addIssue({ code: 'custom', message: 'must be JSON' });
    return z.NEVER;
  }
  const parsed = z
    .record(
      modelId,
      z.strictObject({
        input: perMillion,
        output: perMillion,
        cachedInput: perMillion.optional(),
        cacheWrite: perMillion.optional(),
      }),
    )
    .safeParse(value);
  if (parsed.success) return parsed.data as PriceOverrides;
  const issue = parsed.error.issues[0];
  context.addIssue({
    code: 'custom',
    message: `must map model ids to { input, output, cachedInput?, cacheWrite? } in USD per million tokens (${issue?.path.join('.')}: ${issue?.message})`,
  });
  return z.NEVER;
});

/**
 * Model prices as `AGENTJOBS_MODEL_PRICES` gives them, USD per million tokens by model id; the
 * cache prices default to the input price (`agent/prices.ts`).
 */
export type PriceOverrides = Record<
  string,
  { input: number; output: number; cachedInput?: number; cacheWrite?: number }
>;
