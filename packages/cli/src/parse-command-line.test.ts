import { describe, expect, it } from 'vitest';
import { COMMANDS, GROUPS } from './command-table.js';
import { commandPathOf, kindOf, parseCommandLine } from './parse-command-line.js';
import { UsageError } from './usage-error.js';

function usage(argv: string[]): UsageError {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseCommandLine', () => {
  it('finds the command with global options before it', () => {
    const parsed = parseCommandLine([
      '--home',
      '/h',
      '--json',
      'episodes',
      'query',
      '--scope',
      'x',
      '--type',
      'a',
      '--type',
      'b',
    ]);
    expect(parsed.action).toBe('run');
    if (parsed.action !== 'run') return;
    expect(parsed.spec.path).toEqual(['episodes', 'query']);
    expect(parsed.options).toMatchObject({ home: '/h', json: true, scope: 'x', type: ['a', 'b'] });
  });

  it('answers --version and --help without a command, and help for a command or group', () => {
    expect(parseCommandLine(['--version'])).toEqual({ action: 'version' });
    expect(parseCommandLine([])).toEqual({ action: 'help', target: null });
    const help = parseCommandLine(['runs', 'tail', '--help']);
    expect(
      help.action === 'help' && help.target !== null && 'path' in help.target && help.target.path,
    ).toEqual(['runs', 'tail']);
    const group = parseCommandLine(['tasks']);
    expect(
      group.action === 'help' &&
        group.target !== null &&
        'name' in group.target &&
        group.target.name,
    ).toBe('tasks');
  });

  it('reads short options and values after =', () => {
    const parsed = parseCommandLine([
      'runs',
      'tail',
      '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f',
      '-n',
      '5',
      '-f',
      '--interval-ms=20',
    ]);
    expect(parsed.action === 'run' && parsed.options).toMatchObject({
      count: '5',
      follow: true,
      'interval-ms': '20',
    });
  });

  it('refuses unknown commands and options with suggestions', () => {
    expect(usage(['epsiodes']).message).toContain('Did you mean episodes?');
    expect(usage(['doctr']).message).toContain('Did you mean doctor?');
    expect(usage(['episodes', 'append', '--sumary', 'x']).message).toContain(
      'Did you mean --summary?',
    );
    expect(usage(['--bogus']).message).toContain('Unknown option --bogus');
    expect(usage(['doctor', 'now']).message).toContain('takes no arguments');
  });

  it('suggests the nearest option wherever an unknown one is typed', () => {
    // Alone, before a command, beside a group, and in every command.
    expect(usage(['--versoin']).message).toContain('Did you mean --version?');
    expect(usage(['--hom', '/tmp/x', 'runs', 'list']).message).toMatch(
      /^Unknown option --hom before the command\. Did you mean --home\?/,
    );
    expect(usage(['runs', '--versoin']).message).toMatch(
      /^Unknown option --versoin for "episodic runs"\. Did you mean --version\?/,
    );
    for (const command of COMMANDS) {
      expect(usage([...command.path, '--versoin']).message, command.path.join(' ')).toContain(
        'Did you mean --version?',
      );
    }
    // Global options keep working before the command and beside a group.
    expect(parseCommandLine(['--home', '/tmp/x', '--json', 'runs', 'list']).action).toBe('run');
    expect(parseCommandLine(['--home=/tmp/x', '-q', 'runs', 'list']).action).toBe('run');
    expect(parseCommandLine(['runs', '--no-color']).action).toBe('help');
  });

  it('suggests the nearest option for a typo placed between a group and its command', () => {
    // Every command of every group, the typo with and without a value, alone and after a global.
    const grouped = COMMANDS.filter((candidate) =>
      GROUPS.some((group) => group.name === candidate.path[0]),
    );
    expect(grouped.length).toBeGreaterThan(15);
    for (const command of grouped) {
      const [group, name] = command.path as [string, string];
      const where = `for "episodic ${group} ${name}"`;
      for (const argv of [
        [group, '--versoin', name],
        [group, '--hom', '/tmp/x', name],
        ['--json', group, '--jsno', name],
        [group, '--home', '/tmp/x', '--versoin', name, '--json'],
      ]) {
        const message = usage(argv).message;
        expect(message, argv.join(' ')).toMatch(
          new RegExp(
            `^Unknown option --(versoin|hom|jsno) ${where.replaceAll('"', '"')}\\. Did you mean --(version|home|json)\\?`,
          ),
        );
        expect(message).toContain(`Run "episodic ${group} ${name} --help" to see its options.`);
      }
      const option = Object.keys(command.options).find((key) => key.length >= 5);
      if (option === undefined) continue;
      const typo = `${option.slice(0, -2)}${option.slice(-1)}${option.slice(-2, -1)}`;
      if (typo === option || Object.hasOwn(command.options, typo)) continue;
      // A typo of the command's own option, with a value that is not a command word.
      expect(
        usage([group, `--${typo}`, '3', name]).message,
        `${group} --${typo} 3 ${name}`,
      ).toMatch(
        new RegExp(`^Unknown option --${typo} ${where}\\. Did you mean [^?]*--${option}\\b`),
      );
      // The right option in the wrong place: said where it goes.
      expect(usage([group, `--${option}`, 'x', name]).message).toContain(
        `Option --${option} of "episodic ${group} ${name}" goes after the command`,
      );
    }
    // Nothing close: named, with the command's help.
    expect(usage(['runs', '--bogus', 'list']).message).toBe(
      'Unknown option --bogus for "episodic runs list". Run "episodic runs list --help" to see its options.',
    );
    expect(usage(['runs', '-x', 'list']).message).toContain(
      'Unknown option -x for "episodic runs list"',
    );
    expect(usage(['runs', '-n', '5', 'tail']).message).toContain(
      'Option -n of "episodic runs tail" goes after the command',
    );
    // No command after the group: the options of the group's commands.
    expect(usage(['runs', '--limt', '3']).message).toMatch(
      /^Unknown option --limt for "episodic runs"\. Did you mean --limit\? Run "episodic runs --help"/,
    );
    expect(usage(['runs', '--limt']).message).toContain('Did you mean --limit?');
    // After the command, and before any command (also after a global option with its value).
    expect(usage(['runs', 'list', '--limt', '3']).message).toContain('Did you mean --limit?');
    expect(usage(['--home', '/tmp/x', '--versoin']).message).toMatch(
      /^Unknown option --versoin: give a command first\. Did you mean --version\?/,
    );
    // Global options still go anywhere, and --help still wins.
    expect(parseCommandLine(['runs', '--home', '/tmp/x', '--json', 'list']).action).toBe('run');
    expect(parseCommandLine(['--home', '/tmp/x']).action).toBe('help');
    expect(parseCommandLine(['runs', '--bogus', 'list', '--help']).action).toBe('help');
  });

  it('names the receipt kind of what was typed, even when it is not valid', () => {
    expect(commandPathOf(['--home', 'x', 'episodes', 'query', '--nope'])).toEqual([
      'episodes',
      'query',
    ]);
    expect(commandPathOf(['episodes', 'nope'])).toEqual(['episodes']);
    expect(commandPathOf(['nope'])).toEqual([]);
    expect(commandPathOf(['doctor', '--fix'])).toEqual(['doctor']);
    expect(kindOf(['episodes', 'query'])).toBe('episodic.episodes.query.v1');
    expect(kindOf([])).toBe('episodic.v1');
  });

  it('every command has a usage line, examples, and options that do not clash with the global ones', () => {
    const globals = ['home', 'db', 'store', 'json', 'quiet', 'no-color', 'help', 'version'];
    for (const command of COMMANDS) {
      expect(command.examples.length, command.path.join(' ')).toBeGreaterThan(0);
      expect(command.usage.startsWith(`episodic ${command.path.join(' ')}`)).toBe(true);
      for (const name of Object.keys(command.options)) expect(globals).not.toContain(name);
      const shorts = Object.values(command.options).flatMap((option) =>
        option.short === undefined ? [] : [option.short],
      );
      expect(shorts).not.toContain('h');
      expect(shorts).not.toContain('v');
      expect(shorts).not.toContain('q');
    }
  });
});
