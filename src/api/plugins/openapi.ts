import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';

export interface OpenApiOptions {
  /** The public URL of the service, named in `servers` so that generators and tools call it. */
  publicUrl: string;
}

/** The tags operations are grouped by, in the order API tools list them. */
export const OPENAPI_TAGS = [
  { name: 'Jobs', description: 'Create jobs, follow them, send follow-ups, archive them.' },
  { name: 'Events', description: "A job's activity, as a JSON page or a live Server-Sent Events stream." },
  { name: 'Webhooks', description: 'Endpoints that get job events pushed, and their delivery logs.' },
  {
    name: 'Code-host hooks',
    description: "GitHub, GitLab and Gitea webhooks into a project, signed with the project's hook secret.",
  },
  {
    name: 'Automations',
    description:
      'Jobs that start themselves: on a schedule, a code change, a comment, or on demand; and their runs.',
  },
] as const;

/**
 * The OpenAPI 3.1 document, built from the routes' zod schemas, at `/v2/openapi.json`. Registered
 * before the routes so that it sees them. Schemas that carry `.meta({ id })` (Job, JobEvent, Error)
 * go to `components.schemas` (`jsonSchemaTransformObject` reads zod's global registry) and the
 * operations reference them, so generators get named types.
 */
export const openApi = fp(async (app: FastifyInstance, { publicUrl }: OpenApiOptions) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'agentjobs',
        version: '2',
        description:
          'Send a prompt for a project; an AI agent edits the project repository in the background and opens a pull request. Follow the job by polling, by its live event stream, or by webhooks.',
        license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      },
      servers: [{ url: publicUrl, description: 'This agentjobs server' }],
      tags: [...OPENAPI_TAGS],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'An admin API key (ajs_…) of the project, with the read or write scope.',
          },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (document) => finish(jsonSchemaTransformObject(document) as OpenApiDocument),
  });
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
});

type OpenApiDocument = OpenAPIV3_1.Document;

/** Response headers the routes send that zod schemas cannot describe. */
const HEADERS: Record<string, OpenAPIV3_1.HeaderObject> = {
  RetryAfter: {
    description: 'Seconds to wait before retrying',
    schema: { type: 'integer', minimum: 0 },
  },
  Location: { description: 'The path of the new job', schema: { type: 'string' } },
};
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

function admitsNull(schema: unknown): boolean {
  const anyOf = (schema as { anyOf?: { type?: unknown }[] } | undefined)?.anyOf;
  return anyOf?.some((branch) => branch.type === 'null') ?? false;
}

/**
 * The last touches to the generated document: response headers (Retry-After on 429 and 503, Location
 * on 201), optional bodies, and only the component schemas something references. The transform registers an input
 * and an output copy of every schema in zod's registry (`JobInput` beside `Job`); the copies no
 * operation uses would only be noise for generators and linters.
 */
function finish(document: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item?.[method];
      // @fastify/swagger marks every body required; one whose schema admits null may be left out.
      const body = operation?.requestBody;
      if (body && !('$ref' in body) && admitsNull(body.content['application/json']?.schema))
        body.required = false;
      const responses = operation?.responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        if ('$ref' in response) continue;
        if (status === '429' || status === '503')
          response.headers = { 'Retry-After': headerRef('RetryAfter') };
        if (status === '201') response.headers = { Location: headerRef('Location') };
      }
    }
  }
  const schemas = document.components?.schemas ?? {};
  const used = new Set<string>();
  const visit = (value: unknown) => {
    for (const match of JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1] as string;
      if (used.has(name)) continue;
      used.add(name);
      visit(schemas[name]);
    }
  };
  visit(document.paths);
  return {
    ...document,
    components: {
      ...document.components,
      headers: HEADERS,
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))),
    },
  };
}
