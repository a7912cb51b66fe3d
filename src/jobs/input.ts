/**
 * What a job operation takes, checked the same way whoever asks: the API validates its request
 * bodies with these schemas (and documents them in OpenAPI from them), and the operations parse
 * their input with them again, so a caller that is not the API (the dashboard, MCP, automations)
 * is held to the same rules and gets the same messages.
 */
import { z } from 'zod';
import { AppError } from '../domain/errors.js';

// C0 controls other than tab, newline and carriage return, and DEL: never meaningful in a prompt.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function promptSchema(maxChars: number) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? 'prompt is required' : 'prompt must be a string'),
    })
    .min(1, 'prompt must not be empty')
    .max(maxChars, `prompt must be at most ${maxChars} characters`)
    .refine((value) => value.trim().length > 0, 'prompt must not be only whitespace')
    .refine((value) => !CONTROL_CHARACTERS.test(value), 'prompt must not contain control characters')
    .refine((value) => value.isWellFormed(), 'prompt must be valid Unicode (no lone surrogates)');
}

// Bytes git refuses anywhere in a ref name (git check-ref-format): controls, space and ~ ^ : ? * [ \.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const REF_FORBIDDEN = /[\u0000-\u0020\u007F~^:?*[\\]/;

/**
 * Why git would refuse `name` as a branch (`git check-ref-format --branch`), or null when it
 * accepts it. The worker hands the name to git; checking here answers 400 at once rather than a
 * job that fails later, and keeps option-looking names (`-rf`) away from git's argument lists.
 */
export function branchNameProblem(name: string): string | null {
  if (name.startsWith('-')) return 'must not start with "-"';
  if (name === '@' || name === 'HEAD') return `must not be "${name}"`;
  if (REF_FORBIDDEN.test(name)) {
    return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  }
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{')) return 'must not contain "@{"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) {
    return 'must not start or end with "/" or contain "//"';
  }
  if (name.endsWith('.')) return 'must not end with "."';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'must not have a part that starts with "."';
    if (component.endsWith('.lock')) return 'must not have a part that ends with ".lock"';
  }
  return null;
}

/** A branch name git accepts; shown in OpenAPI as a plain string. */
const branchName = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .superRefine((name, context) => {
    const problem = branchNameProblem(name);
    if (problem) context.addIssue({ code: 'custom', message: `is not a valid branch name: ${problem}` });
  });

export const modelIdSchema = z.string().min(1).max(200);

export function createJobInput(maxPromptChars: number) {
  return z.strictObject({
    prompt: promptSchema(maxPromptChars),
    model: modelIdSchema
      .optional()
      .describe('A model id allowed for the project, e.g. anthropic:claude-sonnet-4-5'),
    baseRef: branchName
      .optional()
      .describe("The branch the pull request targets; the project's base branch by default"),
    draft: z.boolean().optional().describe('Open the pull request as a draft'),
  });
}

export function followUpInput(maxPromptChars: number) {
  return z.strictObject({ prompt: promptSchema(maxPromptChars) });
}

/**
 * `input` as `schema` reads it, or 400 `invalid_request` naming each field that is wrong, as the
 * API's own validation does (`body.prompt: prompt must not be empty`).
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({
    path: ['body', ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const first = details[0];
  throw new AppError('invalid_request', first ? `${first.path}: ${first.message}` : 'Invalid request.', {
    details,
  });
}
