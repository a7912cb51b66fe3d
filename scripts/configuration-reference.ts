/**
 * Writes `docs/configuration.md`, the reference of every setting, from the schema that parses them
 * (`src/config/schema.ts`): `npm run config-reference`. `test/docs/configuration.test.ts` renders it
 * the same way and fails when the checked-in page is stale, or when the code reads an
 * `AGENTJOBS_` variable the page does not list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { CLIENT_VARIABLES } from '../src/cli/client.js';
import { environmentSchema } from '../src/config/schema.js';
import { SETTING_GROUPS, type SettingDoc, type SettingGroup } from '../src/config/setting-doc.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE_PATH = path.join(root, 'docs/configuration.md');

/** The default as the reference shows it: the documented text, else the parser's own default. */
function shownDefault(parser: z.ZodType, doc: SettingDoc): string {
  if (doc.shownDefault) return doc.shownDefault;
  const def = parser.def as { type: string; defaultValue?: unknown };
  if (def.type !== 'default') return '–';
  const value = def.defaultValue;
  return `\`${String(value)}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The reference page, as Markdown. */
export function renderConfigurationReference(): string {
  const rows = new Map<SettingGroup, string[]>();
  for (const [name, parser] of Object.entries(environmentSchema.shape) as [string, z.ZodType][]) {
    const doc = parser.meta() as SettingDoc | undefined;
    if (!doc?.description) throw new Error(`${name} has no documentation in src/config/schema.ts`);
    const row = `| \`${name}\` | ${cell(shownDefault(parser, doc))} | ${cell(doc.description)} |`;
    rows.set(doc.group, [...(rows.get(doc.group) ?? []), row]);
  }
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config/schema.ts by `npm run config-reference`: edit the schema, not this page. -->',
    '',
    'The service reads its settings from environment variables once, at start, and a wrong one stops',
    'the start with a line that names it. Every process of one installation (`serve`, `api`, `worker`)',
    'should get the same values, `AGENTJOBS_SECRET_KEY` and `AGENTJOBS_PUBLIC_URL` above all.',
    '',
  ];
  for (const [group, title] of Object.entries(SETTING_GROUPS) as [SettingGroup, string][]) {
    const groupRows = rows.get(group);
    if (!groupRows) continue;
    lines.push(`## ${title}`, '', '| variable | default | what |', '|---|---|---|', ...groupRows, '');
  }
  lines.push(
    '## The command line as a client',
    '',
    'The `agentjobs` commands that talk to a running server (`job`, `automation`, `webhook`, `mcp`) read:',
    '',
    '| variable | what |',
    '|---|---|',
    ...Object.entries(CLIENT_VARIABLES).map(([name, what]) => `| \`${name}\` | ${cell(what)} |`),
    '',
  );
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(REFERENCE_PATH, renderConfigurationReference());
  console.log(`wrote ${path.relative(process.cwd(), REFERENCE_PATH)}`);
}
