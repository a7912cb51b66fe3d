import { describe, expect, it } from 'vitest';
import { pullRequestTitle } from './publish.js';

const job = (title: string | null = null) => ({
  prompt: 'Add an FAQ page to the guide\n\nWith three questions.',
  title,
});

describe('a job title', () => {
  it('is named by the first run: the agent title, else a short summary line, else the prompt', () => {
    expect(pullRequestTitle({ title: 'Add the FAQ', summary: 'whatever' }, job())).toBe('Add the FAQ');
    expect(pullRequestTitle({ title: null, summary: 'Add FAQ page\n\nDetails.' }, job())).toBe(
      'Add FAQ page',
    );
    expect(pullRequestTitle({ title: null, summary: `${'x'.repeat(80)}\n` }, job())).toBe(
      'Add an FAQ page to the guide',
    );
    expect(pullRequestTitle({ title: null, summary: '' }, { prompt: '  ', title: null })).toBe(
      'Changes by agentjobs',
    );
  });

  it('is never a chat line, even on the first run', () => {
    for (const line of ['Done. I added docs/faq.md', 'Done', 'Sure, here it is', 'OK! Updated it.']) {
      expect(pullRequestTitle({ title: line, summary: line }, job())).toBe('Add an FAQ page to the guide');
    }
    // A period inside a name is not a second sentence.
    expect(pullRequestTitle({ title: 'Document v2.1 and e.g. flags', summary: '' }, job())).toBe(
      'Document v2.1 and e.g. flags',
    );
  });

  it('stays what it is after a follow-up, whatever the model answers', () => {
    const named = job('Add the FAQ');
    expect(pullRequestTitle({ title: 'Done. I added a fourth question', summary: '' }, named)).toBe(
      'Add the FAQ',
    );
    expect(pullRequestTitle({ title: 'Make the FAQ kinder', summary: 'Make the FAQ kinder' }, named)).toBe(
      'Add the FAQ',
    );
  });

  it('keeps a title that happens to be the prompt', () => {
    const short = { prompt: 'Add an FAQ page', title: 'Add an FAQ page' };
    expect(pullRequestTitle({ title: 'Reworded the FAQ', summary: '' }, short)).toBe('Add an FAQ page');
  });

  it('replaces a stopgap title (a prompt cut short, or none) with a real one a later run gives', () => {
    const long = `Please ${'really '.repeat(20)}add an FAQ page`;
    const cutShort = pullRequestTitle(
      { title: null, summary: 'x'.repeat(100) },
      { prompt: long, title: null },
    );
    expect(cutShort.endsWith('…')).toBe(true);
    expect(pullRequestTitle({ title: 'Add the FAQ', summary: '' }, { prompt: long, title: cutShort })).toBe(
      'Add the FAQ',
    );
    expect(
      pullRequestTitle({ title: 'Done. Added it.', summary: '' }, { prompt: long, title: cutShort }),
    ).toBe(cutShort);
    const none = { prompt: ' ', title: 'Changes by agentjobs' };
    expect(pullRequestTitle({ title: 'Add the FAQ', summary: '' }, none)).toBe('Add the FAQ');
  });
});
