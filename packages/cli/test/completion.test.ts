import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, GROUPS } from '../src/command-table.js';
import { episodic, episodicJson, expectError, temporaryDirectory } from './helpers.js';

// `episodic completion bash|zsh|fish`: each script parses in its shell (bash -n, zsh -n, fish -n),
// and completes what the command table holds, run in the real shell. CI installs zsh and fish
// (.ci/run); a machine without one skips that shell's tests and says so.

function has(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

async function script(shell: string): Promise<string> {
  const result = await episodic(['completion', shell]);
  expect(result.status, result.stderr).toBe(0);
  const path = join(temporaryDirectory('episodic-completion-'), `episodic.${shell}`);
  writeFileSync(path, result.stdout);
  return path;
}

function run(shell: string, args: string[]): string {
  const result = spawnSync(shell, args, { encoding: 'utf8', timeout: 120_000 });
  expect(result.status, `${shell} ${args.join(' ')}: ${result.stderr}`).toBe(0);
  expect(result.stderr).toBe('');
  return result.stdout;
}

const groups = GROUPS.map((group) => group.name);
const leaves = COMMANDS.filter((command) => command.path.length === 1).map(
  (command) => command.path[0] as string,
);

describe('episodic completion', () => {
  it('refuses an unknown shell and prints a receipt with --json', async () => {
    expectError(await episodicJson(['completion', 'powershell']), 2, 'VALIDATION_ERROR');
    const receipt = (await episodicJson(['completion', 'bash'])).receipt;
    expect(receipt).toMatchObject({ kind: 'episodic.completion.v1', ok: true, shell: 'bash' });
    expect(receipt.script).toContain('complete -F _episodic episodic');
  });

  it('bash: parses, and completes commands, options and values', async () => {
    const path = await script('bash');
    run('bash', ['-n', path]);
    const probe = `source ${JSON.stringify(path)}
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _episodic; echo "\${COMPREPLY[*]}"; }
comp episodic ''
comp episodic runs ''
comp episodic --home /tmp/h tasks l
comp episodic runs list --st
comp episodic runs list --store ''
comp episodic --store = f
comp episodic episodes query --type tool.
comp episodic completion ''
comp episodic tasks list --scope x --outcome ''
comp episodic episodes gc --al
comp episodic export --al
comp episodic search "rate limit" --ag
comp episodic search x --type ops.
comp episodic patterns search --que
`;
    const lines = run('bash', ['-c', probe]).split('\n');
    expect(lines[0]?.split(' ')).toEqual([...groups, ...leaves, 'help']);
    expect(lines[1]?.split(' ')).toEqual(
      COMMANDS.filter((command) => command.path[0] === 'runs').map((command) => command.path[1]),
    );
    expect(lines.slice(2, 14)).toEqual([
      'list',
      '--store',
      'sqlite fs',
      'fs',
      'tool.call tool.result',
      'bash zsh fish',
      'success partial_success failure open',
      '--all-scopes',
      '--all --all-scopes',
      '--agent-id',
      'ops.decision ops.alert',
      '--query',
    ]);
  });

  it.skipIf(!has('zsh'))('zsh: parses, and completes commands, options and values', async () => {
    const path = await script('zsh');
    run('zsh', ['-n', path]);
    const probe = `compdef() { : }
source ${JSON.stringify(path)}
cand() { words=("$@"); CURRENT=$#words; local -a reply; local reply_kind reply_prefix; __episodic_candidates; print -r -- "$reply_kind|$reply_prefix|\${(j: :)reply}"; }
cand episodic ''
cand episodic --home /x episodes query --type ''
cand episodic runs list --store=
cand episodic import ''
cand episodic tasks ''
cand episodic episodes redact --
`;
    const lines = run('zsh', ['-f', '-c', probe]).split('\n');
    expect(lines[0]).toMatch(/^described\|\|episodes:the scoped ledger/);
    for (const name of [...groups, ...leaves]) expect(lines[0]).toContain(` ${name}:`);
    expect(lines.slice(1, 4)).toEqual([
      'words||conversation.user conversation.assistant tool.call tool.result ops.decision ops.alert',
      'words|--store=|sqlite fs',
      'files||',
    ]);
    expect(lines[4]).toContain('list:');
    expect(lines[5]?.split('|')[2]?.split(' ')).toEqual(
      expect.arrayContaining(['--global', '--all-scopes', '--yes', '--dry-run']),
    );
  });

  it.skipIf(!has('fish'))('fish: parses, and completes commands, options and values', async () => {
    const path = await script('fish');
    run('fish', ['-n', path]);
    const complete = (line: string) =>
      run('fish', ['--no-config', '-c', `source ${path}; complete -C${JSON.stringify(line)}`])
        .split('\n')
        .filter((entry) => entry !== '')
        .map((entry) => entry.split('\t')[0]);
    expect(complete('episodic ')).toEqual(expect.arrayContaining([...groups, ...leaves, 'help']));
    expect(complete('episodic patterns ')).toEqual(['search', 'show']);
    expect(complete('episodic runs list --store ')).toEqual(['fs', 'sqlite']);
    expect(complete('episodic --home /tmp episodes query --ty')).toEqual(['--type']);
    // --global is described as the scope named global, and every scope has its own flag.
    const described = run('fish', [
      '--no-config',
      '-c',
      `source ${path}; complete -C${JSON.stringify('episodic episodes gc --')}`,
    ]);
    expect(described).toMatch(/^--global\tthe scope named global/m);
    expect(described).toMatch(/^--all-scopes\tact on every scope/m);
    expect(described).toMatch(/^--yes\tconfirm the change across every scope/m);
    expect(complete('episodic tasks list --scope x --outcome ')).toEqual([
      'failure',
      'open',
      'partial_success',
      'success',
    ]);
  });
});
