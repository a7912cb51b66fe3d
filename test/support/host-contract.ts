/**
 * The contract every code host keeps (docs/code-hosts.md), run against each implementation: a
 * pull request opens and links to the host's own page; opening again for the same branch (a
 * retried run, a follow-up) updates and returns the same pull request, never a second one; another
 * branch gets a pull request of its own; closing a branch's pull request closes that one only, and
 * then finds nothing to close; a pull request's state and head branch read back; a host with labels
 * puts one on a pull request and takes it off (each twice without error) and says when it may not;
 * git gets an environment of plain strings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/domain/job.js';
import type { Project } from '../../src/domain/project.js';
import type { CodeHost } from '../../src/hosts/types.js';

/** A host ready to test, with what the suite needs to observe it. */
export interface HostUnderTest {
  host: CodeHost;
  project: Project;
  /** A job of the project, for the pull request input. */
  job(title: string): Promise<Job>;
  /** The link the host's pull request `number` must have. */
  expectedUrl(number: number): string;
  /** The title the host now holds for pull request `number`. */
  titleOf(number: number): Promise<string | undefined>;
  /**
   * Pushes a commit that is not on the base to `branch`, for hosts that read the repository itself
   * (the local host counts a pull request whose branch is gone as closed).
   */
  push?(branch: string): void;
  /** Whether the host holds pull request `number` open. */
  isOpen(number: number): Promise<boolean>;
  /** The names of pull request `number`'s labels; absent for a host without labels (the local one). */
  labelsOf?(number: number): Promise<string[]>;
  /** From now on the host refuses label changes (or drops them, as GitLab does), as to a token that may not label. */
  refuseLabels?(refuse: boolean): void;
  close(): Promise<void>;
}

/** The label the service puts on a pull request whose checks failed. */
const LABEL = 'agentjobs: checks failed';

export function codeHostContract(name: string, setup: () => Promise<HostUnderTest>): void {
  describe(`code host contract: ${name}`, () => {
    let subject: HostUnderTest;
    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.close();
    });

    const open = async (branch: string, title = `Change ${branch}`) => {
      subject.push?.(branch);
      return subject.host.openOrUpdatePullRequest({
        project: subject.project,
        job: await subject.job(title),
        branch,
        base: subject.project.baseBranch,
        title,
        body: `Body of ${title}`,
        draft: false,
        headSha: 'a'.repeat(40),
      });
    };

    it('opens a pull request and links to it', async () => {
      const link = await open('agentjobs/contract-one');
      expect(link.number).toBeGreaterThan(0);
      expect(link.url).toBe(subject.expectedUrl(link.number));
      expect(await subject.titleOf(link.number)).toBe('Change agentjobs/contract-one');
    });

    it('reuses and updates the pull request of a branch', async () => {
      const first = await open('agentjobs/contract-two', 'First title');
      const again = await open('agentjobs/contract-two', 'Second title');
      expect(again).toEqual(first);
      expect(await subject.titleOf(first.number)).toBe('Second title');
    });

    it('opens a new pull request for another branch', async () => {
      const one = await open('agentjobs/contract-three');
      const two = await open('agentjobs/contract-four');
      expect(two.number).not.toBe(one.number);
      expect(two.url).toBe(subject.expectedUrl(two.number));
    });

    it('closes the open pull request of a branch (an archived job), and then has nothing to close', async () => {
      const link = await open('agentjobs/contract-archived');
      const other = await open('agentjobs/contract-kept');
      const close = () =>
        subject.host.closePullRequest({ project: subject.project, branch: 'agentjobs/contract-archived' });
      expect(await close()).toEqual(link);
      expect(await subject.isOpen(link.number)).toBe(false);
      expect(await subject.isOpen(other.number)).toBe(true);
      expect(await close()).toBeNull();
      expect(
        await subject.host.closePullRequest({ project: subject.project, branch: 'agentjobs/never-opened' }),
      ).toBeNull();
    });

    it('says whether a pull request is open or closed, and its head branch; null for none', async () => {
      const link = await open('agentjobs/contract-state');
      const state = (number: number) => subject.host.pullRequestState({ project: subject.project, number });
      expect(await state(link.number)).toEqual({
        number: link.number,
        state: 'open',
        branch: 'agentjobs/contract-state',
      });
      await subject.host.closePullRequest({ project: subject.project, branch: 'agentjobs/contract-state' });
      expect(await state(link.number)).toEqual({
        number: link.number,
        state: 'closed',
        branch: 'agentjobs/contract-state',
      });
      expect(await state(99_999)).toBeNull();
    });

    it('puts a label on a pull request and takes it off, twice each without error, where the host has labels', async () => {
      const { labelsOf } = subject;
      if (!labelsOf) {
        expect(subject.host.labelPullRequest).toBeUndefined();
        return;
      }
      const link = await open('agentjobs/contract-label');
      const label = (present: boolean) =>
        subject.host.labelPullRequest?.({
          project: subject.project,
          number: link.number,
          label: LABEL,
          present,
        });
      await label(true);
      await label(true);
      expect(await labelsOf(link.number)).toEqual([LABEL]);
      await label(false);
      await label(false);
      expect(await labelsOf(link.number)).toEqual([]);
    });

    it('says when the host does not let the token label', async () => {
      if (!subject.refuseLabels) {
        expect(subject.host.labelPullRequest).toBeUndefined();
        return;
      }
      const link = await open('agentjobs/contract-label-refused');
      subject.refuseLabels(true);
      try {
        await expect(
          subject.host.labelPullRequest?.({
            project: subject.project,
            number: link.number,
            label: LABEL,
            present: true,
          }),
        ).rejects.toMatchObject({ code: 'code_host_error', isRetryable: false });
      } finally {
        subject.refuseLabels(false);
      }
      expect(await subject.labelsOf?.(link.number)).toEqual([]);
    });

    it('gives git an environment of strings and no URL with credentials', async () => {
      const env = await subject.host.gitEnv(subject.project);
      // The local host needs no credentials and may give none: an empty environment keeps the rule too.
      expect(env).toBeTypeOf('object');
      for (const [key, value] of Object.entries(env)) {
        expect(typeof value, key).toBe('string');
        expect(value, key).not.toMatch(/:\/\/[^/\s]*@/);
      }
    });
  });
}
