import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerProjectCommands } from './project.js';

/** The help of `agentjobs project NAME`, as `--help` prints it. */
function helpOf(name: string): string {
  const program = new Command('agentjobs');
  registerProjectCommands(program);
  const command = program.commands
    .find((c) => c.name() === 'project')
    ?.commands.find((c) => c.name() === name);
  if (!command) throw new Error(`no project ${name} command`);
  return command.helpInformation();
}

describe('project command help', () => {
  it('lists what a project is (name, repository, host) before its check options', () => {
    const help = helpOf('create');
    const at = (option: string) => {
      const index = help.indexOf(option);
      expect(index, option).toBeGreaterThan(-1);
      return index;
    };
    expect(at('--name')).toBeLessThan(at('--check-command'));
    expect(at('--repo')).toBeLessThan(at('--check-command'));
    expect(at('--token-stdin')).toBeLessThan(at('--check-command'));
  });
});
