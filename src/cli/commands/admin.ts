import type { Command } from 'commander';
import { generatePassword, setAdminPassword } from '../../domain/password.js';
import { withStore } from '../local.js';
import { CliError, type OutputOptions, print } from '../output.js';

/** The new password from standard input, never an argument (the process list is public). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export function registerAdminCommands(program: Command) {
  const admin = program
    .command('admin')
    .description('The dashboard’s admin account (works on the local database)');

  admin
    .command('password')
    .description('Replace the dashboard password and sign every browser out; prints a new one unless --stdin')
    .option('--stdin', 'read the new password from standard input instead of generating one')
    .option('--json', 'machine-readable output')
    .action(async (options: OutputOptions & { stdin?: boolean }) => {
      const password = options.stdin ? await readStdin() : generatePassword();
      if (password.length < 8) throw new CliError('The password must be at least 8 characters.');
      await withStore((store) => setAdminPassword(store.admin, password));
      // The server stores AGENTJOBS_ADMIN_PASSWORD at every start, which would undo this.
      if (process.env.AGENTJOBS_ADMIN_PASSWORD)
        process.stderr.write(
          'Warning: AGENTJOBS_ADMIN_PASSWORD is set here; a server started with it puts that password back.\n',
        );
      const shown = options.stdin ? {} : { password };
      print(options, { ok: true, ...shown }, () =>
        options.stdin
          ? 'The dashboard password is replaced; every browser is signed out.'
          : `New dashboard password (shown this once): ${password}\nEvery browser is signed out.`,
      );
    });
}
