/**
 * The setup command and the jobs that use its environment, through the real worker (issue 33's
 * first finding): a job on an unmerged branch never runs that branch's setup, with network or
 * without, and never makes the environment the base branch's jobs reuse; in push mode, a commit
 * of the service's that changes what setup reads holds the next setup until a person accepts it.
 */
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxStatus } from '../../src/checks/sandbox.js';
import { acceptSetupReview } from '../../src/operations/setup-review.js';
import { testDialects } from '../support/db.js';
import { useScriptedWorker } from '../support/scripted-worker.js';
import { git } from '../support/worker.js';

const status = await sandboxStatus({ unlimited: false });

/** A setup script that leaves a tool printing `says`, and first tries to call `url`. */
const setupScript = (says: string, url = '') =>
  `${url ? `node -e "fetch('${url}').catch(() => {})"\n` : ''}mkdir -p node_modules/.bin\nprintf '#!/bin/sh\\necho ${says}\\n' > node_modules/.bin/tool\nchmod 755 node_modules/.bin/tool\n`;

describe.skipIf(!status.available).each(testDialects())(
  'the setup command through the worker on %s',
  (dialect) => {
    const scripted = useScriptedWorker({ name: `setup-base-${dialect}`, dialect });
    let listener: Server;
    const calls: string[] = [];

    beforeAll(async () => {
      listener = createServer((request, response) => {
        calls.push(request.url ?? '');
        response.end('ok');
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const { port } = listener.address() as AddressInfo;
      const { repo } = scripted;
      const commit = (message: string) =>
        git(repo, '-c', 'user.name=Owner', '-c', 'user.email=o@example.com', 'commit', '-q', '-m', message);
      fs.writeFileSync(path.join(repo, 'package-lock.json'), '{}\n');
      fs.writeFileSync(path.join(repo, 'setup.sh'), setupScript('honest tool'));
      git(repo, 'add', '-A');
      commit('setup');
      // An unmerged branch, as a job could have written it: the same lockfiles, a trojan tool, and a
      // call to a service on this machine's loopback.
      git(repo, 'checkout', '-q', '-b', 'unmerged');
      fs.writeFileSync(
        path.join(repo, 'setup.sh'),
        setupScript('all checks passed', `http://127.0.0.1:${port}/trojan-setup-ran`),
      );
      git(repo, 'add', '-A');
      commit('trojan');
      git(repo, 'checkout', '-q', 'main');
      // Push mode pushes onto main, which this working copy has checked out.
      git(repo, 'config', 'receive.denyCurrentBranch', 'updateInstead');
      await scripted.t.store.projects.update(scripted.project.id, { setupCommand: 'sh setup.sh' });
    });
    afterAll(async () => {
      await new Promise((resolve) => listener.close(resolve));
    });

    const job = async (baseRef: string) => {
      const created = await scripted.t.store.jobs.create({
        projectId: scripted.project.id,
        prompt: 'Look around',
        model: 'openai-compatible:scripted',
        baseRef,
        repository: scripted.repo,
        draft: false,
      });
      return scripted.settled(created.id);
    };
    const setupOf = async (jobId: string) => {
      const events = await scripted.t.store.events.list(jobId, 0, 10_000);
      const setup = events.find((event) => event.type === 'setup');
      return setup?.data as { status: string; key: string; message: string };
    };
    /** A job on `baseRef` whose model changes nothing: all it does is set up the environment. */
    const idleJob = (baseRef: string) => {
      scripted.model.setScript([{ text: 'Nothing to change.' }]);
      return job(baseRef);
    };
    /** The setup of a job that ended without an error, checked to have been built anew. */
    const builtSetup = async (done: { id: string; error: unknown }) => {
      expect(done.error).toBeNull();
      const setup = await setupOf(done.id);
      expect(setup.status).toBe('built');
      return setup;
    };
    const toolOf = (key: string) =>
      fs.readFileSync(
        path.join(scripted.dir, 'data', 'environments', scripted.project.id, key, 'node_modules/.bin/tool'),
        'utf8',
      );

    it('never runs an unmerged branch’s setup, and the next job on the base gets the base’s tools', async () => {
      const branchSetup = await builtSetup(await idleJob('unmerged'));
      // The job on the branch got the base branch's environment; the trojan never ran.
      expect(toolOf(branchSetup.key)).toContain('honest tool');
      expect(calls).toEqual([]);
      const onBase = await idleJob('main');
      const baseSetup = await setupOf(onBase.id);
      expect(baseSetup).toMatchObject({ status: 'reused', key: branchSetup.key });
      expect(toolOf(baseSetup.key)).toContain('honest tool');
    });

    it('push mode: a commit of the service’s that changes setup.sh holds the next setup until a person accepts it', async () => {
      const { store } = scripted.t;
      await store.projects.update(scripted.project.id, { publish: 'push' });
      // A page alone holds nothing.
      scripted.model.setScript([
        { toolCalls: [{ name: 'write_file', input: { path: 'docs/page.md', content: '# Page\n' } }] },
        { text: 'Added a page.' },
      ]);
      const page = await job('main');
      expect(page.status, JSON.stringify(page.error)).toBe('completed');
      expect((await store.projects.get(scripted.project.id))?.setupReview).toBeNull();
      scripted.model.setScript([
        {
          toolCalls: [
            { name: 'write_file', input: { path: 'setup.sh', content: setupScript('model-written tool') } },
          ],
        },
        { text: 'Changed the setup.' },
      ]);
      const writer = await job('main');
      expect(writer.status).toBe('completed');
      expect(git(scripted.repo, 'show', 'main:setup.sh')).toContain('model-written tool');
      expect((await store.projects.get(scripted.project.id))?.setupReview).toMatchObject({
        files: ['setup.sh'],
        jobIds: [writer.id],
      });

      const held = await idleJob('main');
      expect(held.status).toBe('failed');
      expect(held.error?.code).toBe('setup_needs_review');
      expect(held.error?.message).toMatch(
        /changed what it reads \(setup\.sh\).*agentjobs project setup accept/,
      );
      expect((await setupOf(held.id)).status).toBe('held');

      expect(await acceptSetupReview(store, scripted.project.id)).toMatchObject({ files: ['setup.sh'] });
      const setup = await builtSetup(await idleJob('main'));
      expect(toolOf(setup.key)).toContain('model-written tool');
    });
  },
);
