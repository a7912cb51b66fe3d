// Bad request paths and query strings: unknown projects, jobs and routes, overlong ids, wrong methods.
import type { InjectOptions } from 'fastify';
import type { TestApp } from '../support/app.js';
import { bearer, create, describeBadInput, get, jobs, type Row } from '../support/bad-input-fixture.js';

/**
 * Ids that name no job, of every shape a client may hold or an attacker may try: each is 404
 * job_not_found on every job route, and none reaches the database as anything but a parameter.
 */
const unknownJobIds: [string, string][] = [
  ['a ULID', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  ['a UUID', '3f1c9a52-8d7e-4b1a-9c3e-2f6d5a4b7c81'],
  ['a word', 'does-not-exist'],
  ['a 1,024-character id', 'x'.repeat(1024)],
  ['unicode', encodeURIComponent('tâche-😀-任务')],
  ['a NUL byte', 'job%00id'],
  ['SQL', encodeURIComponent("x' OR '1'='1")],
  ['HTML', 'job%20%3Cscript%3E'],
  ['a dot-dot path', '..%2F..%2Fetc'],
];

function unknownJobRows(): Row[] {
  const routes: [string, (t: TestApp, id: string) => InjectOptions][] = [
    ['GET job', (t, id) => get(t, `${jobs(t)}/${id}`)],
    ['message', (t, id) => ({ ...create(t, { prompt: 'more' }), url: `${jobs(t)}/${id}/message` })],
    ['archive', (t, id) => ({ ...create(t, {}), url: `${jobs(t)}/${id}/archive` })],
    ['events', (t, id) => get(t, `${jobs(t)}/${id}/events`)],
    [
      'events SSE',
      (t, id) => ({
        ...get(t, `${jobs(t)}/${id}/events`),
        headers: { ...bearer(t.key), accept: 'text/event-stream' },
      }),
    ],
  ];
  return routes.flatMap(([route, request]) =>
    unknownJobIds.map(([shape, id]) => ({
      name: `${route} with ${shape} that names no job`,
      status: 404,
      code: 'job_not_found',
      request: (t: TestApp) => request(t, id),
    })),
  );
}

const rows: Row[] = [
  // 400 invalid_request: the query string
  {
    name: 'bad cursor',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?cursor=not-a-cursor`),
  },
  { name: 'limit of 0', status: 400, code: 'invalid_request', request: (t) => get(t, `${jobs(t)}?limit=0`) },
  {
    name: 'limit of 101',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?limit=101`),
  },
  {
    name: 'limit that is no number',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?limit=ten`),
  },
  {
    name: 'unknown status filter',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?status=running`),
  },
  {
    name: 'unknown query parameter',
    status: 400,
    code: 'invalid_request',
    request: (t) => get(t, `${jobs(t)}?sort=asc`),
  },
  {
    name: 'negative events after',
    status: 400,
    code: 'invalid_request',
    request: (t, c) => get(t, `${jobs(t)}/${c.jobId}/events?after=-1`),
  },
  // 404
  {
    name: 'unknown project',
    status: 404,
    code: 'project_not_found',
    request: (t) => get(t, '/v2/agent/no-such-project/job'),
  },
  {
    name: 'project id with a NUL byte',
    status: 404,
    code: 'project_not_found',
    request: (t) => get(t, '/v2/agent/no%00such/job'),
  },
  ...unknownJobRows(),
  {
    name: 'unknown route',
    status: 404,
    code: 'not_found',
    request: () => ({ method: 'GET', url: '/v2/nothing/here' }),
  },
  // 414: longer than any id, refused by the router before authentication
  {
    name: 'job id over 1,024 characters',
    status: 414,
    code: 'uri_too_long',
    request: (t) => get(t, `${jobs(t)}/${'a'.repeat(1025)}`),
  },
  // 405
  {
    name: 'wrong method',
    status: 405,
    code: 'method_not_allowed',
    request: (t) => ({ method: 'DELETE', url: jobs(t), headers: bearer(t.key) }),
    headers: { allow: /GET.*POST|POST.*GET/ },
  },
  // 409
  {
    name: 'follow-up on an archived job',
    status: 409,
    code: 'job_archived',
    request: (t, c) => ({ ...create(t, { prompt: 'more' }), url: `${jobs(t)}/${c.archivedJobId}/message` }),
  },
];

describeBadInput(rows);
