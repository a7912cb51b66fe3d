/**
 * Writes the OpenAPI document the server serves to `docs/openapi.json`, and the client's types
 * generated from it by openapi-typescript to `src/client/schema.ts` (`npm run openapi`).
 * `test/openapi.test.ts` builds both the same way and fails when a checked-in copy is stale.
 *
 * The document is the one a server with the default configuration serves: the default public URL
 * and limits. A server with other settings serves its own values at `/v2/openapi.json`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../src/api/app.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/log.js';
import { openStore } from '../src/store/open.js';
import { lazySecretBox } from '../src/store/secrets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DOCUMENT_PATH = path.join(root, 'docs/openapi.json');
export const CLIENT_TYPES_PATH = path.join(root, 'src/client/schema.ts');

/** The document of a server with the default configuration, as the API serves it (JSON text). */
export async function renderOpenApiDocument(): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-openapi-'));
  // The app needs a store to be built; an empty SQLite one serves, and no request reaches it.
  const config = loadConfig({ AGENTJOBS_DATA_DIR: dataDir });
  const store = await openStore(config);
  try {
    const app = await buildApp({
      config,
      store,
      logger: createLogger('silent'),
      secrets: lazySecretBox(config),
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/v2/openapi.json' });
      if (response.statusCode !== 200) throw new Error(`/v2/openapi.json answered ${response.statusCode}`);
      return `${JSON.stringify(response.json(), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The client's TypeScript types for `document` (the text of the OpenAPI document). */
export async function renderClientTypes(document: string): Promise<string> {
  const ast = await openapiTS(JSON.parse(document));
  return [
    '// Generated from docs/openapi.json by openapi-typescript (`npm run openapi`). Do not edit.',
    '',
    astToString(ast),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const document = await renderOpenApiDocument();
  fs.writeFileSync(DOCUMENT_PATH, document);
  fs.writeFileSync(CLIENT_TYPES_PATH, await renderClientTypes(document));
  process.stdout.write(
    `Wrote ${path.relative(root, DOCUMENT_PATH)} and ${path.relative(root, CLIENT_TYPES_PATH)}\n`,
  );
}
