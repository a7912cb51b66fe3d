/**
 * The URL rules that need the network: a receiver's host name must resolve, and every address it
 * resolves to must be allowed (`domain/webhook.ts`). Checked when an endpoint is saved and, through
 * `safeLookup`, at each connection the sender makes, so a name that later resolves elsewhere (DNS
 * rebinding) is refused at the moment it would be used.
 */
import dns, { type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { hostOf, webhookUrlProblem, webhookUrlRefusal } from '../domain/webhook.js';
import { addressRefusal } from '../domain/webhook-address.js';

/** `dns.lookup` with `all: true`, or a stand-in in tests. */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * A receiver that may not be sent to; `message` says why in words a user can act on, the same
 * sentence wherever it is shown (`webhookUrlRefusal`).
 */
export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError';
  constructor(problem: string) {
    super(webhookUrlRefusal(problem));
  }
}

function refusedAmong(
  host: string,
  addresses: LookupAddress[],
  allowPrivate: boolean,
): WebhookUrlError | null {
  if (addresses.length === 0) return new WebhookUrlError(`${host} does not resolve to any address`);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allowPrivate);
    if (refusal) return new WebhookUrlError(`${host} resolves to ${address}, ${refusal}`);
  }
  return null;
}

/**
 * Throws `WebhookUrlError` unless `url` may receive webhooks: the rules of `webhookUrlProblem`,
 * and a host name that resolves only to allowed addresses.
 */
export async function checkWebhookUrl(
  url: string,
  allowPrivate: boolean,
  resolve: Resolve = systemResolve,
): Promise<void> {
  const problem = webhookUrlProblem(url, allowPrivate);
  if (problem) throw new WebhookUrlError(problem);
  const host = hostOf(new URL(url));
  if (isIP(host) !== 0) return; // an IP literal: checked above
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new WebhookUrlError(`${host} does not resolve`);
  }
  const refused = refusedAmong(host, addresses, allowPrivate);
  if (refused) throw refused;
}

/**
 * A `lookup` for `http.request` that refuses disallowed addresses at connection time. Node calls
 * it only for host names; IP literals are checked by `webhookUrlProblem` before the request.
 */
export function safeLookup(allowPrivate: boolean, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = family ? found.filter((entry) => entry.family === family) : found;
        const refused = refusedAmong(hostname, addresses, allowPrivate);
        if (refused) return callback(refused, '', 0);
        if (options.all)
          return (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
