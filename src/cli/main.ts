#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config.js';
import { AgentJobsError, cliErrorOf } from './client.js';
import { registerAdminCommands } from './commands/admin.js';
import { registerAutomationCommands } from './commands/automation.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerJobCommands } from './commands/job.js';
import { registerKeyCommands } from './commands/key.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerPullRequestCommands } from './commands/pr.js';
import { registerProjectCommands } from './commands/project.js';
import { registerQuickstartCommand } from './commands/quickstart.js';
import { registerServerCommands } from './commands/server.js';
import { registerSlackCommands } from './commands/slack.js';
import { registerWebhookCommands } from './commands/webhook.js';
import { CliError } from './output.js';

const program = new Command()
  .name('agentjobs')
  .description('Self-hosted agent jobs: a prompt in, a pull request out.')
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride();

registerServerCommands(program);
registerQuickstartCommand(program);
registerProjectCommands(program);
registerKeyCommands(program);
registerJobCommands(program);
registerPullRequestCommands(program);
registerWebhookCommands(program);
registerAutomationCommands(program);
registerAdminCommands(program);
registerSlackCommands(program);
registerMcpCommand(program);
registerEvalCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (caught) {
  if (caught instanceof CommanderError) {
    // Help and version exit 0; usage errors were already printed by commander.
    process.exit(caught.exitCode);
  }
  const json = process.argv.includes('--json');
  // The job commands' API errors, said as the command line says its own.
  const error = caught instanceof AgentJobsError ? cliErrorOf(caught) : caught;
  if (error instanceof CliError || error instanceof ConfigError) {
    const code = error instanceof CliError ? error.code : 'config_error';
    if (json) process.stdout.write(`${JSON.stringify({ error: error.message, code }, null, 2)}\n`);
    else process.stderr.write(`agentjobs: ${error.message}\n`);
    process.exit(error instanceof CliError ? error.exitCode : 2);
  }
  process.stderr.write(`agentjobs: unexpected error: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
}
