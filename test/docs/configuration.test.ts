import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_PATH, renderConfigurationReference } from '../../scripts/configuration-reference.js';

const root = path.resolve(import.meta.dirname, '../..');

/** Every `AGENTJOBS_…` name the source mentions, less prefixes and names it sets for its own children. */
function variablesInSource(): Set<string> {
  // Set by the service for git's askpass helper, never by a person.
  const internal = new Set(['AGENTJOBS_GIT_TOKEN', 'AGENTJOBS_GIT_USERNAME']);
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
        for (const match of fs.readFileSync(full, 'utf8').matchAll(/\bAGENTJOBS_[A-Z0-9_]*[A-Z0-9]\b/g)) {
          if (!internal.has(match[0])) names.add(match[0]);
        }
      }
    }
  };
  walk(path.join(root, 'src'));
  return names;
}

describe('the configuration reference', () => {
  it('is the page the schema renders (run `npm run config-reference` after changing a setting)', () => {
    expect(fs.readFileSync(REFERENCE_PATH, 'utf8')).toBe(renderConfigurationReference());
  });

  it('lists every AGENTJOBS_ variable the source reads', () => {
    const page = renderConfigurationReference();
    const missing = [...variablesInSource()].filter((name) => !page.includes(`\`${name}\``));
    expect(missing).toEqual([]);
    expect(variablesInSource().size).toBeGreaterThan(40);
  });
});
