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
    .refine((value) => value.trim().length > 0, {
      message: 'prompt must not be only whitespace',
      params: { problem: 'blank' },
    })
    .refine((value) => !CONTROL_CHARACTERS.test(value), {
      message: 'prompt must not contain control characters',
      params: { problem: 'control_characters' },
    })
    .refine((value) => value.isWellFormed(), {
      message: 'prompt must be valid Unicode (no lone surrogates)',
      params: { problem: 'malformed_unicode' },
    });
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
    const reason = branchNameProblem(name);
    if (reason)
      context.addIssue({
        code: 'custom',
        message: `is not a valid branch name: ${reason}`,
        params: { problem: 'invalid_branch', reason },
      });
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
 * What is wrong with a field, as a code a front end switches on (never the message's words):
 * `missing` (absent), `empty`, `blank` (only whitespace), `too_long`, `wrong_type`,
 * `control_characters`, `malformed_unicode`, `invalid_branch`, `unknown_field`, `not_absolute` (a
 * path that must be absolute), `not_found` (what the field names does not exist), `invalid` (any
 * other rule; the message says which).
 */
export type InputProblem =
  | 'missing'
  | 'empty'
  | 'blank'
  | 'too_long'
  | 'wrong_type'
  | 'control_characters'
  | 'malformed_unicode'
  | 'invalid_branch'
  | 'unknown_field'
  | 'not_absolute'
  | 'not_found'
  | 'invalid';

/** One field that is wrong: its name as the operation calls it, the problem's code, and a sentence. */
export interface FieldProblem {
  field: string;
  problem: InputProblem;
  message: string;
  /** For `invalid_branch`: why git refuses the name, without the field's words around it. */
  reason?: string | undefined;
  /** For `too_long`: the most the field may hold. */
  limit?: number | undefined;
}

const INPUT_ERROR = Symbol.for('agentjobs.InputError');

/**
 * An operation's input broke a rule: `invalid_request` (400) with each wrong field typed, so that
 * the dashboard puts each next to its field and the CLI after its flag by `field` and `problem`,
 * never by reading the message. `details` keep the API's shape (`body.prompt`, or the bare field
 * for the operations that have no request body of their own).
 */
export class InputError extends AppError {
  override name = 'InputError';
  readonly [INPUT_ERROR] = true;
  readonly problems: FieldProblem[];

  constructor(problems: [FieldProblem, ...FieldProblem[]], options: { pathPrefix?: string } = {}) {
    const { pathPrefix } = options;
    const details = problems.map((problem) => ({
      path: [pathPrefix, problem.field].filter(Boolean).join('.'),
      message: problem.message,
    }));
    const [first] = details;
    super('invalid_request', pathPrefix ? `${first?.path}: ${first?.message}` : problems[0].message, {
      details,
    });
    this.problems = problems;
  }

  /** The first wrong field. */
  get field(): string {
    return this.problems[0]?.field ?? '';
  }

  get problem(): InputProblem {
    return this.problems[0]?.problem ?? 'invalid';
  }

  static override isInstance(error: unknown): error is InputError {
    return typeof error === 'object' && error !== null && INPUT_ERROR in error;
  }
}

/** One wrong field, as an error. */
export const invalidField = (field: string, problem: InputProblem, message: string) =>
  new InputError([{ field, problem, message }]);

/** What `input` holds at `path`; zod's issues do not carry it. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path)
    value =
      typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function problemOf(
  issue: z.core.$ZodIssue,
  input: unknown,
): Pick<FieldProblem, 'problem' | 'reason' | 'limit'> {
  switch (issue.code) {
    case 'invalid_type':
      return { problem: valueAt(input, issue.path) === undefined ? 'missing' : 'wrong_type' };
    case 'too_small':
      return { problem: 'empty' };
    case 'too_big':
      return { problem: 'too_long', limit: Number(issue.maximum) };
    case 'unrecognized_keys':
      return { problem: 'unknown_field' };
    case 'custom': {
      const params = (issue.params ?? {}) as { problem?: InputProblem; reason?: string };
      return { problem: params.problem ?? 'invalid', ...(params.reason ? { reason: params.reason } : {}) };
    }
    default:
      return { problem: 'invalid' };
  }
}

/**
 * `input` as `schema` reads it, or 400 `invalid_request` naming each field that is wrong, as the
 * API's own validation does (`body.prompt: prompt must not be empty`), each typed (`InputError`).
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.'),
    message: issue.message,
    ...problemOf(issue, input),
  }));
  const [first, ...rest] = problems;
  if (!first) throw new AppError('invalid_request', 'Invalid request.');
  throw new InputError([first, ...rest], { pathPrefix: 'body' });
}
