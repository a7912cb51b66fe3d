// The job API as the benchmark scripts call it: one request with a project's key, a job's events.

/** `method route` under /v2/agent/<project> at `address`; the parsed answer, or throws on an error. */
export async function api(address, project, method, route, body) {
  const response = await fetch(`${address}/v2/agent/${project.id}${route}`, {
    method,
    headers: { authorization: `Bearer ${project.key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Every event of job `id`, page by page. */
export async function jobEvents(address, project, id) {
  const events = [];
  let after = '';
  for (;;) {
    const page = await api(address, project, 'GET', `/job/${id}/events${after}`);
    events.push(...page.events);
    if (!page.nextCursor) break;
    after = `?after=${page.nextCursor}`;
  }
  return events;
}
