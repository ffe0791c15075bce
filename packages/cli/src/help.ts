import type { CommandSpec, GroupSpec, OptionSpec } from './command-spec.js';
import { COMMANDS, GLOBAL_OPTIONS, GROUPS } from './command-table.js';
import type { Styles } from './output.js';

const WIDTH = 100;

function wrap(text: string, indent: number, width = WIDTH): string {
  const words = text.split(/\s+/).filter((word) => word !== '');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((text) => `${' '.repeat(indent)}${text}`).join('\n');
}

function optionLabel(name: string, option: OptionSpec): string {
  const short = option.short === undefined ? '    ' : `-${option.short}, `;
  const value = option.type === 'string' ? ` ${option.value ?? 'VALUE'}` : '';
  const repeat = option.multiple === true ? '…' : '';
  return `${short}--${name}${value}${repeat}`;
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string {
  const entries = Object.entries(options);
  const labels = entries.map(([name, option]) => optionLabel(name, option));
  const width = Math.min(30, Math.max(...labels.map((label) => label.length)));
  return entries
    .map(([, option], index) => {
      const label = labels[index] as string;
      const description = wrap(option.description, width + 4).trimStart();
      return label.length > width
        ? `  ${label}\n${' '.repeat(width + 4)}${description}`
        : `  ${label.padEnd(width)}  ${description}`;
    })
    .join('\n');
}

function examples(lines: readonly string[]): string {
  return lines.map((line) => `  ${line}`).join('\n');
}

/** The top-level help: the commands, the global options, examples. */
export function renderMainHelp(styles: Styles): string {
  const leaves = COMMANDS.filter((command) => command.path.length === 1);
  const rows: [string, string][] = [
    ...GROUPS.map((group): [string, string] => [
      `${group.name} ${COMMANDS.filter((command) => command.path[0] === group.name)
        .map((command) => command.path[1])
        .join('|')}`,
      group.summary,
    ]),
    ...leaves.map((command): [string, string] => {
      const name = command.path[0] as string;
      const subcommands = COMMANDS.filter(
        (candidate) => candidate.path.length === 2 && candidate.path[0] === name,
      ).map((candidate) => candidate.path[1]);
      return [
        subcommands.length === 0 ? name : `${name} [${subcommands.join('|')}]`,
        command.summary,
      ];
    }),
  ];
  const width = Math.min(24, Math.max(...rows.map(([name]) => name.length)));
  const commandLine = ([name, summary]: [string, string]) =>
    name.length > width
      ? `  ${name}\n  ${' '.repeat(width)}  ${summary}`
      : `  ${name.padEnd(width)}  ${summary}`;
  return `${styles.bold('Usage:')} episodic <command> [options]

Episodic: a trustworthy memory of what happened, for AI agents. Query and maintain the scoped
ledger, inspect runs, sessions and task episodes, serve MCP, and verify or repair the files.

${styles.bold('Commands:')}
${rows.map(commandLine).join('\n')}

${styles.bold('Global options:')}
${optionLines(GLOBAL_OPTIONS)}

${styles.bold('Examples:')}
${examples([
  'episodic episodes append --scope my-project --session-id sess-001 --agent-id planner --type conversation.user --summary "Asked for status"',
  'episodic episodes query --scope my-project --session-id sess-001 --json',
  'episodic runs list --from 2026-01-01',
  'episodic doctor --fix',
  'episodic episodes --help',
])}

Exit codes: 0 success, 1 conflict, missing object, damaged data or storage failure, 2 invalid input
or usage (nothing was changed). Run "episodic <command> --help" for a command's options.
`;
}

/** The help of a group: its commands and examples. */
export function renderGroupHelp(group: GroupSpec, styles: Styles): string {
  const commands = COMMANDS.filter((command) => command.path[0] === group.name);
  const width = Math.max(...commands.map((command) => (command.path[1] as string).length));
  return `${styles.bold('Usage:')} episodic ${group.name} <command> [options]

${wrap(group.description ?? group.summary, 0)}

${styles.bold('Commands:')}
${commands.map((command) => `  ${(command.path[1] as string).padEnd(width)}  ${command.summary}`).join('\n')}

${styles.bold('Examples:')}
${examples(group.examples)}

Run "episodic ${group.name} <command> --help" for a command's options.
`;
}

/** The help of one command: usage, description, arguments, options, global options, examples. */
export function renderCommandHelp(command: CommandSpec, styles: Styles): string {
  const parts = [
    `${styles.bold('Usage:')} ${command.usage}`,
    wrap(command.description ?? command.summary, 0),
  ];
  if (command.positionals !== undefined && command.positionals.length > 0) {
    const width = Math.max(...command.positionals.map((positional) => positional.name.length));
    parts.push(
      `${styles.bold('Arguments:')}\n${command.positionals
        .map((positional) => `  ${positional.name.padEnd(width)}  ${positional.description}`)
        .join('\n')}`,
    );
  }
  if (Object.keys(command.options).length > 0) {
    parts.push(`${styles.bold('Options:')}\n${optionLines(command.options)}`);
  }
  parts.push(`${styles.bold('Global options:')}\n${optionLines(GLOBAL_OPTIONS)}`);
  parts.push(`${styles.bold('Examples:')}\n${examples(command.examples)}`);
  return `${parts.join('\n\n')}\n`;
}
