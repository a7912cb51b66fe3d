import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { ApiKey, ApiKeyWithHash } from '../domain/api-key.js';
import { AppError } from '../domain/errors.js';
import { parseAllowlistEntry } from '../domain/ip-allowlist.js';
import { hashKey, isWellFormedKey, sameHash } from '../domain/keys.js';
import type { Store } from '../store/store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key that authenticated this request; set by `authenticate`. */
    apiKey?: ApiKey;
  }
}

const unauthorized = (message: string) => new AppError('unauthorized', message);

function allowlistAdmits(entries: string[], ip: string): boolean {
  // Built per request from the row just read: an allowlist holds a few entries, and a list kept
  // between requests would be one more thing to keep in step with the database.
  const list = new BlockList();
  for (const entry of entries) {
    const { address, prefix, family } = parseAllowlistEntry(entry);
    list.addSubnet(address, prefix, family);
  }
  // IPv4 clients on a dual-stack socket show up as ::ffff:a.b.c.d.
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  const family = isIP(plain) === 4 ? 'ipv4' : 'ipv6';
  return list.check(plain, family);
}

/**
 * Authenticates a `/v2/agent/{projectId}/…` request: a well-formed, known, live key of this
 * project or an instance key (any existing project), used from an allowed address, with the scope the method needs. 401 when the key
 * itself is missing or not good; 403 when a good key may not do this.
 */
export function authenticate(store: Store, request: FastifyRequest): Promise<ApiKey> {
  const { projectId } = request.params as { projectId?: string };
  const scope = request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
  return admit(store, request, { projectId, scope });
}

/** What a request needs of a key beyond being good: its project, its scope (each when known). */
export interface Access {
  projectId?: string | undefined;
  scope?: 'read' | 'write' | undefined;
}

/**
 * The key check of any request that carries an admin key (the v2 routes, `/mcp`): a good key
 * (401 when not), used from an allowed address, with `access` when given (403 when not). The
 * key's use is recorded once it is admitted.
 */
export async function admit(store: Store, request: FastifyRequest, access: Access): Promise<ApiKey> {
  const digest = presentedDigest(request);
  const key = identify(await store.apiKeys.findByHash(digest), digest);
  const { projectId, scope } = access;
  if (projectId !== undefined && projectId !== key.projectId) await refuseOtherProject(store, key, projectId);
  authorize(request, key, scope);
  const { keyHash: _hash, ...publicKey } = key;
  store.apiKeys
    .touch(publicKey)
    ?.catch((error) => request.log.warn({ err: error }, 'could not record key use'));
  return publicKey;
}

/** The digest of the key in the Authorization header; throws 401 when there is no good one. */
function presentedDigest(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <key>.');
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected "Bearer <key>".');
  const presented = match[1];
  if (!isWellFormedKey(presented)) throw unauthorized('The API key is not valid.');
  return hashKey(presented);
}

/** The looked-up record, when it is a live key: 401 otherwise. */
function identify(key: ApiKeyWithHash | undefined, digest: string): ApiKeyWithHash {
  // The lookup is by hash, so timing says nothing about the key; the comparison is constant-time anyway.
  if (!key || !sameHash(key.keyHash, digest)) throw unauthorized('The API key is not valid.');
  const refusal = keyRefusal(key);
  if (refusal) throw unauthorized(refusal);
  return key;
}

/**
 * Why a key may not be used now (there is no such key, it was revoked, it expired), or undefined
 * while it may: what a 401 says, and what ends the event streams the key holds open.
 */
export function keyRefusal(
  key: Pick<ApiKey, 'revokedAt' | 'expiresAt'> | undefined,
  now = Date.now(),
): string | undefined {
  if (!key) return 'The API key is not valid.';
  if (key.revokedAt) return 'The API key has been revoked.';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return `The API key expired at ${key.expiresAt}.`;
  return undefined;
}

/** Whether a live key may be used from here, with this scope: 403 otherwise. */
function authorize(request: FastifyRequest, key: ApiKeyWithHash, scope: Access['scope']) {
  if (key.ipAllowlist && !allowlistAdmits(key.ipAllowlist, request.ip)) {
    throw new AppError('forbidden', `This API key may not be used from ${request.ip}.`);
  }
  if (scope !== undefined && !key.scopes.includes(scope)) {
    throw new AppError('forbidden', `This API key lacks the ${scope} scope.`);
  }
}

/**
 * A good key on a path of a project it does not belong to: 404 when there is no such project; an
 * instance key (no project of its own) is admitted on any other, a project key refused (403).
 */
async function refuseOtherProject(store: Store, key: ApiKey, projectId: string): Promise<void> {
  const project = await store.projects.get(projectId);
  if (!project) throw new AppError('project_not_found', `No project ${projectId}.`);
  if (key.projectId !== null) throw new AppError('forbidden', 'This API key belongs to another project.');
}
