import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jobBranch } from './job.js';

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
