import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

/** What git itself says of a branch name; run outside any repository, so nothing is expanded. */
function gitAccepts(name: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', '--branch', name], { cwd: tmpdir(), stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

const NAMES = [
  'main',
  'feature/x.y',
  'v1.2',
  'a-',
  'a@b',
  'release/2026-11',
  '文档/页',
  '-rf',
  '--upload-pack=touch',
  'HEAD',
  'a..b',
  'a.lock',
  'a.lock/b',
  'x/.y',
  '.hidden',
  'a/b.',
  'a b',
  'a\tb',
  'a\u0000b',
  'a\u007fb',
  'a~1',
  'a^',
  'a:b',
  'a?',
  'a*',
  'a[b',
  'a\\b',
  'a@{1}',
  'a//b',
  '/a',
  'a/',
];

describe('baseRef follows git’s rules for branch names (sqlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  const create = (baseRef: string) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/agent/${t.project.id}/job`,
      headers: { authorization: `Bearer ${t.key}` },
      payload: { prompt: 'Fix the typo', baseRef },
    });

  it.each(NAMES)('answers %j as git check-ref-format --branch does', async (name) => {
    const response = await create(name);
    if (gitAccepts(name)) {
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().baseRef).toBe(name);
    } else {
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'invalid_request',
        requestId: expect.any(String),
        details: [{ path: 'body.baseRef', message: expect.stringMatching(/^is not a valid branch name: /) }],
      });
    }
  });

  it('refuses "@", which git takes for HEAD where a revision is expected', async () => {
    expect((await create('@')).statusCode).toBe(400);
  });

  it('says why "-rf" is refused', async () => {
    const response = await create('-rf');
    expect(response.json().error).toBe('body.baseRef: is not a valid branch name: must not start with "-"');
  });

  it('describes baseRef in OpenAPI as a string', async () => {
    const document = (await t.app.inject({ url: '/v2/openapi.json' })).json();
    const body =
      document.paths['/v2/agent/{projectId}/job'].post.requestBody.content['application/json'].schema;
    expect(body.properties.baseRef).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
  });
});
