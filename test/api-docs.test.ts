import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderOpenApiDocument } from '../scripts/openapi.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is arbitrary JSON read freely here
type Json = any;

/** The job fields of docs/api.md's contract; docs/api.md must explain every other one. */
const CONTRACT_FIELDS = ['id', 'status', 'source', 'model', 'prLink', 'createdAt', 'archivedAt'];

/** Every property name of an object schema, nested objects' included (`usage.steps` as `steps`). */
function propertyNames(schema: Json, document: Json): string[] {
  if (!schema) return [];
  if (schema.$ref) return propertyNames(document.components.schemas[schema.$ref.split('/').pop()], document);
  if (schema.anyOf || schema.oneOf)
    return (schema.anyOf ?? schema.oneOf).flatMap((variant: Json) => propertyNames(variant, document));
  if (schema.items) return propertyNames(schema.items, document);
  return Object.entries((schema.properties ?? {}) as Record<string, Json>).flatMap(([name, property]) => [
    name,
    ...propertyNames(property, document),
  ]);
}

// docs/api.md once said `draft` was the only field beyond the contract while there were a dozen:
// the served document is the truth, and the page must keep up with it.
describe('docs/api.md', () => {
  let document: Json;
  let page: string;
  beforeAll(async () => {
    document = JSON.parse(await renderOpenApiDocument());
    page = fs.readFileSync('docs/api.md', 'utf8');
  });
  // A name counts as mentioned inside a code span, alone or in a shape: `draft`, `source.ref`,
  // `{ code, message }`. Spans are matched in order, so text between two spans is never one.
  const mentioned = (name: string) =>
    (page.match(/`[^`\n]+`/g) ?? []).some((span) => new RegExp(`\\b${name}\\b`).test(span));

  it('explains every job field beyond the contract, nested ones included', () => {
    const job = document.components.schemas.Job;
    const fields = Object.keys(job.properties).filter((name) => !CONTRACT_FIELDS.includes(name));
    expect(fields.length).toBeGreaterThan(10);
    const nested = propertyNames(job, document).filter((name) => !CONTRACT_FIELDS.includes(name));
    const missing = [...new Set([...fields, ...nested])].filter((name) => !mentioned(name));
    expect(missing, 'job fields docs/api.md does not mention').toEqual([]);
  });

  it('names every path of the OpenAPI document and every create body field', () => {
    const missing = Object.keys(document.paths).filter((path) => !page.includes(path));
    expect(missing, 'paths docs/api.md does not mention').toEqual([]);
    const create =
      document.paths['/v2/agent/{projectId}/job'].post.requestBody.content['application/json'].schema;
    const body = Object.keys(create.properties).filter((name) => name !== 'prompt');
    expect(body).toContain('draft');
    expect(body.filter((name) => !mentioned(name))).toEqual([]);
  });

  it('no longer says that draft is the only extension', () => {
    expect(page).not.toMatch(/one extension beyond/i);
  });
});
