import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';

/**
 * The stylesheet, the script and the icon, read once from `assets/` (beside `src/` and `dist/`, so the
 * source and the build find the same files). Their URLs carry a content hash, so browsers may
 * keep them forever and still get a new version the moment it changes.
 */
const FILES = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  // Every page names it, so browsers do not ask for /favicon.ico (a 404 in every page's log).
  'favicon.svg': 'image/svg+xml',
} as const;
type AssetName = keyof typeof FILES;

const loaded = Object.fromEntries(
  Object.keys(FILES).map((name) => {
    const body = readFileSync(new URL(`../../assets/${name}`, import.meta.url));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    return [name, { body, hash }];
  }),
) as Record<AssetName, { body: Buffer; hash: string }>;

export const assetUrl = (name: AssetName) => `/ui/assets/${name}?v=${loaded[name].hash}`;

/** Registered under the dashboard's `/ui` prefix. */
export const assetRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { name: string } }>(
    '/assets/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const name = request.params.name as AssetName;
      const asset = Object.hasOwn(FILES, name) ? loaded[name] : undefined;
      if (!asset) return reply.code(404).type('text/plain').send('Not found');
      return reply
        .type(FILES[name])
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(asset.body);
    },
  );
};
