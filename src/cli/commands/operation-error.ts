/**
 * An operation's refusal (`operations/`), said as the command line says its own errors: a wrong field
 * after the flag it came from, any other code as it is. The rules and their words are the
 * operation's; only the flag is the command's.
 */
import { AppError } from '../../domain/errors.js';
import { InputError } from '../../operations/input.js';
import { CliError } from '../output.js';

/** Runs `operation`, turning its typed refusal into a `CliError`; `flags` names each field's flag. */
export async function asCommand<T>(
  operation: () => Promise<T>,
  flags: Readonly<Record<string, string>> = {},
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw cliErrorOf(error, flags) ?? error;
  }
}

/** The `CliError` an operation's error reads as, or null for a fault (left to crash loudly). */
export function cliErrorOf(error: unknown, flags: Readonly<Record<string, string>>): CliError | null {
  if (InputError.isInstance(error)) {
    const { field, problems } = error;
    const message = problems[0]?.message ?? error.message;
    const flag = flags[field];
    // A message in lower case reads after its field's name (`--name is required.`); a whole
    // sentence follows its flag after a colon, as the dashboard shows it next to the field.
    const sentence = !flag ? message : /^[a-z]/.test(message) ? `${flag} ${message}` : `${flag}: ${message}`;
    return new CliError(/[.!?)]$/.test(sentence) ? sentence : `${sentence}.`, error.code);
  }
  if (error instanceof AppError && error.expected) {
    const hint = error.code === 'project_not_found' ? ' List them with: agentjobs project list' : '';
    return new CliError(`${error.message}${hint}`, error.code);
  }
  return null;
}
