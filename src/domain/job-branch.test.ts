import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jobBranch, nextJobBranch } from './job.js';
import { pullRequestNumber } from './pull-request.js';

const ID = '01JDQ2J7T0V5Y8G1ZK3M4N6P7R';
const SHORT = ID.slice(-8).toLowerCase();

/** Whether git itself takes `ref` as a branch name (`git check-ref-format --branch`). */
function validBranch(ref: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', '--branch', ref], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('job branch names', () => {
  it.each([
    ['Add a FAQ page', `agentjobs/${SHORT}-add-a-faq-page`],
    // Accents stay letters instead of splitting the word ("de-marrage").
    ['Démarrage rapide', `agentjobs/${SHORT}-demarrage-rapide`],
    ['Straße für Ærø', `agentjobs/${SHORT}-strasse-fuer-aero`],
    ['Добавь страницу о медленной сборке', `agentjobs/${SHORT}-dobav-stranitsu-o-medlennoy-sborke`],
    ['Προσθήκη σελίδας', `agentjobs/${SHORT}-prosthiki-selidas`],
    // A script without a transliteration keeps what was Latin in it.
    ['添加 FAQ 页面', `agentjobs/${SHORT}-faq`],
    // Ligatures and circled digits are their plain letters.
    ['ﬁx step ①', `agentjobs/${SHORT}-fix-step-1`],
  ])('%s → %s', (prompt, branch) => {
    expect(jobBranch(ID, prompt)).toBe(branch);
    expect(validBranch(branch)).toBe(true);
  });

  it.each([
    ['Chinese only', '添加常见问题页面'],
    ['Japanese only', 'よくある質問のページを追加'],
    ['emoji only', '🚀🔥✨'],
    ['Hebrew (right to left)', 'הוסף עמוד שאלות נפוצות'],
    ['punctuation only', '—…!? «»'],
    ['empty', ''],
  ])('%s: nothing meaningful remains, so the id alone', (_name, prompt) => {
    expect(jobBranch(ID, prompt)).toBe(`agentjobs/${SHORT}`);
    expect(validBranch(`agentjobs/${SHORT}`)).toBe(true);
  });

  it('transliterates right-to-left Arabic, and every name is a valid git branch', () => {
    const arabic = jobBranch(ID, 'إضافة صفحة الأسئلة');
    expect(arabic).toMatch(new RegExp(`^agentjobs/${SHORT}-[a-z0-9-]+$`));
    const hostile = [
      'a..b',
      'x.lock',
      '@{upstream}',
      'a\\b~c^d:e?f*g[h',
      `${'long '.repeat(40)}end`,
      '-leading dash',
      'trailing dot.',
      'Ünïcödé ✓ mixed 中文 text',
    ];
    for (const prompt of [arabic, ...hostile]) {
      const branch = jobBranch(ID, prompt);
      expect(branch.length).toBeLessThanOrEqual(`agentjobs/${SHORT}-`.length + 40);
      expect(validBranch(branch), branch).toBe(true);
    }
  });
});

describe('the branch of a follow-up after a merged or closed pull request', () => {
  const first = jobBranch(ID, 'Add step 2');
  it('counts from the job branch, whatever number its prompt ends in', () => {
    expect(first).toBe(`agentjobs/${SHORT}-add-step-2`);
    expect(nextJobBranch(ID, 'Add step 2', first)).toBe(`${first}-2`);
    expect(nextJobBranch(ID, 'Add step 2', `${first}-2`)).toBe(`${first}-3`);
    expect(nextJobBranch(ID, 'Add step 2', `${first}-9`)).toBe(`${first}-10`);
    expect(validBranch(nextJobBranch(ID, 'Add step 2', `${first}-2`))).toBe(true);
  });
});

describe('pull request numbers from their links', () => {
  it.each([
    ['https://github.com/acme/docs/pull/12', 12],
    ['https://gitlab.com/acme/docs/-/merge_requests/7', 7],
    ['https://gitea.example.com/acme/docs/pulls/3', 3],
    ['http://127.0.0.1:8080/ui/projects/01ABC/pulls/41', 41],
    ['https://github.com/acme/docs', null],
  ])('%s → %s', (link, number) => {
    expect(pullRequestNumber(link)).toBe(number);
  });
});
