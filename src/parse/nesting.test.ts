import { describe, expect, it } from 'vitest';
import { jsonNesting, markdownNesting, treeDepth, yamlNesting } from './nesting.js';

describe('nesting measures', () => {
  it('counts the Markdown containers that open a line, not what the line says', () => {
    expect(markdownNesting('# Title\n\nText with > and - in it, 1. too.\n')).toBe(0);
    expect(markdownNesting('> > - 1. item\n')).toBe(4);
    expect(markdownNesting('- a\n  - b\n    - c\n')).toBe(3);
    expect(markdownNesting('2025. A year\n1.5 million\n')).toBe(1);
    expect(markdownNesting(`${'>'.repeat(80_000)} word`)).toBe(80_000);
  });

  it('counts JSON brackets outside strings', () => {
    expect(jsonNesting('{"a": [1, {"b": "[[[{{{\\"]]]"}]}')).toBe(3);
    expect(jsonNesting(`${'['.repeat(120_000)}${']'.repeat(120_000)}`)).toBe(120_000);
  });

  it('bounds YAML nesting by flow brackets, indentation and compact indicators', () => {
    expect(yamlNesting('a: 1\nb:\n  - c\n  - d: [1, 2]\n')).toBeLessThan(8);
    expect(yamlNesting(`${'- '.repeat(1_000)}a`)).toBeGreaterThanOrEqual(1_000);
    expect(yamlNesting(`x: ${'{a: '.repeat(500)}1${'}'.repeat(500)}`)).toBeGreaterThanOrEqual(500);
  });

  it('measures a tree without recursion, however deep', () => {
    let root: { children: object[] } = { children: [] };
    const top = root;
    for (let level = 0; level < 200_000; level++) {
      const child = { children: [] };
      root.children.push(child);
      root = child;
    }
    expect(treeDepth(top)).toBe(200_001);
  });
});
