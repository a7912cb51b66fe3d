import fs from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENT_TYPES_PATH,
  DOCUMENT_PATH,
  renderClientTypes,
  renderOpenApiDocument,
} from '../scripts/openapi.js';
import { JOB_FAILURE_CODES } from '../src/domain/errors.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON read freely here
type Json = any;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document with its method and path. */
function operations(document: Json): { method: string; path: string; operation: Json }[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] })),
  );
}

describe('the OpenAPI document', () => {
  let text: string;
  let document: Json;
  beforeAll(async () => {
    text = await renderOpenApiDocument();
    document = JSON.parse(text);
  });

  it('is the one checked in as docs/openapi.json (run `npm run openapi` when this fails)', () => {
    expect(fs.readFileSync(DOCUMENT_PATH, 'utf8')).toBe(text);
  });

  it('generates the client types checked in as src/client/schema.ts (run `npm run openapi`)', async () => {
    expect(fs.readFileSync(CLIENT_TYPES_PATH, 'utf8')).toBe(await renderClientTypes(text));
  });

  it('defines every schema and header it references', () => {
    const references = [...text.matchAll(/"\$ref": "#\/components\/(\w+)\/([^"]+)"/g)];
    expect(references.length).toBeGreaterThan(20);
    for (const [, kind, name] of references) {
      expect(document.components[kind as string], `${kind}/${name}`).toHaveProperty(name as string);
    }
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Job', 'JobEvent', 'Error']),
    );
  });

  it("gives the job's error.code as an enum of every failure code", () => {
    const error = document.components.schemas.Job.properties.error;
    const code = error.anyOf.find((schema: Json) => schema.type === 'object').properties.code;
    expect(code.enum).toEqual([...JOB_FAILURE_CODES]);
  });

  it('names its server, its licence and an example job', () => {
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:8080', description: expect.any(String) }]);
    expect(document.info.license).toMatchObject({ name: 'MIT' });
    expect(document.components.schemas.Job.examples[0]).toMatchObject({ status: 'completed' });
  });

  it('gives every operation a unique operationId, a summary, a description and a known tag', () => {
    const ids = new Set<string>();
    const tags = new Set((document.tags as { name: string }[]).map((tag) => tag.name));
    for (const { method, path, operation } of operations(document)) {
      const where = `${method} ${path}`;
      expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId), `${where}: duplicate operationId`).toBe(false);
      ids.add(operation.operationId);
      expect(operation.summary, where).toBeTruthy();
      expect(operation.description, where).toBeTruthy();
      expect(operation.tags?.length, where).toBeGreaterThan(0);
      for (const tag of operation.tags) expect(tags.has(tag), `${where}: tag ${tag}`).toBe(true);
    }
    expect([...ids]).toEqual(
      expect.arrayContaining([
        'createJob',
        'getJob',
        'listJobs',
        'sendMessage',
        'archiveJob',
        'listJobEvents',
      ]),
    );
  });

  it('lists the error answers of every operation, each with the Error schema', () => {
    for (const { method, path, operation } of operations(document)) {
      const where = `${method} ${path}`;
      const statuses = Object.keys(operation.responses);
      // The code hosts' webhooks take no API key (so no 403): the host's signature instead (401).
      if (path.startsWith('/v2/hooks/'))
        expect(statuses, where).toEqual(expect.arrayContaining(['401', '404', '413', '503']));
      else if (path.startsWith('/v2/'))
        expect(statuses, where).toEqual(expect.arrayContaining(['401', '403', '503']));
      if (path.includes('{jobId}')) expect(statuses, where).toContain('404');
      for (const status of statuses.filter((status) => Number(status) >= 400)) {
        const response = operation.responses[status];
        expect(response.description, `${where} ${status}`).not.toBe('Default Response');
        expect(response.content['application/json'].schema, `${where} ${status}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
        if (status === '429' || status === '503')
          expect(response.headers, where).toHaveProperty('Retry-After');
      }
    }
    expect(document.paths['/v2/agent/{projectId}/job'].post.responses).toHaveProperty('429');
    expect(document.paths['/v2/agent/{projectId}/job/{jobId}/message'].post.responses).toHaveProperty('429');
  });

  it('is accepted by openapi-typescript', async () => {
    const types = astToString(await openapiTS(document));
    expect(types).toContain('createJob: {');
    expect(types).toContain('Job: {');
  });
});
