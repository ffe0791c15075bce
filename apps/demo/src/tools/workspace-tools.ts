import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { FunctionCallItem } from '@episodic/core';
import { CalculatorError, evaluateExpression, formatNumber } from './calculator.js';

/** A tool as the model is told about it (the OpenAI Chat Completions `function` shape). */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** What running one tool call produced. */
export interface ToolRun {
  /** The text the model receives as the call's output. */
  readonly output: string;
  /** True when the tool refused or failed (the output says why). */
  readonly isError: boolean;
}

/** The tools of the demo agent. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'list_files',
    description: 'List the files of the workspace (or of one folder in it) with their sizes.',
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'A folder inside the workspace; default: the whole workspace.',
        },
      },
      additionalProperties: false,
    },
  },
  {
    name: 'read_file',
    description: 'Read one text file of the workspace.',
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'The file, relative to the workspace, e.g. "notes.md".',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'search_files',
    description: 'Find the lines of workspace files that contain a text (case-insensitive).',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'The text to look for, e.g. "ERROR".' },
        path: {
          type: 'string',
          description: 'One file or folder to search; default: the whole workspace.',
        },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  {
    name: 'calculator',
    description:
      'Evaluate arithmetic: numbers, + - * / % ^ and parentheses, e.g. "4*12.5 + 2*7.25".',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string', description: 'The expression to evaluate.' } },
      required: ['expression'],
      additionalProperties: false,
    },
  },
  {
    name: 'scan_workspace',
    description:
      'Scan every file of the workspace for secrets such as API keys. Slow: about a second per file.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
];

const MAX_SEARCH_MATCHES = 50;
const SCAN_DELAY_MS = 1_000;
const SECRET_LIKE = /\b(?:sk-[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,})\b/;

class ToolInputError extends Error {}

function argumentsOf(call: FunctionCallItem): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments || '{}');
  } catch {
    throw new ToolInputError(
      `the arguments are not JSON (${JSON.stringify(call.arguments.slice(0, 80))})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ToolInputError('the arguments must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

function stringArgument(
  args: Record<string, unknown>,
  name: string,
  required: boolean,
): string | undefined {
  const value = args[name];
  if (value === undefined || value === null || value === '') {
    if (required) throw new ToolInputError(`"${name}" is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ToolInputError(`"${name}" must be a string`);
  return value;
}

/**
 * Resolves a path the model gave to a real path inside the workspace. Absolute paths, `..`
 * escapes and symbolic links that lead outside are refused, so the model can only ever read
 * the workspace.
 */
async function insideWorkspace(root: string, path: string | undefined): Promise<string> {
  const given = path ?? '.';
  if (given.includes('\0')) throw new ToolInputError('the path contains a NUL byte');
  if (isAbsolute(given))
    throw new ToolInputError(`"${given}" is absolute: give a path relative to the workspace`);
  const realRoot = await realpath(root);
  const candidate = resolve(realRoot, given);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw new ToolInputError(
      `"${given}" does not exist in the workspace (list_files shows what does)`,
    );
  }
  const inside = relative(realRoot, real);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new ToolInputError(`"${given}" is outside the workspace`);
  }
  return real;
}

async function walk(directory: string, root: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  entries.sort((left, right) => left.name.localeCompare(right.name));
  const files: string[] = [];
  for (const entry of entries) {
    const full = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(full, root)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

const toRelative = (root: string, path: string) => relative(root, path).split(sep).join('/');

async function filesUnder(root: string, target: string): Promise<string[]> {
  const stat = await lstat(target);
  return stat.isDirectory() ? walk(target, root) : [target];
}

async function listFiles(root: string, args: Record<string, unknown>): Promise<string> {
  const realRoot = await realpath(root);
  const target = await insideWorkspace(root, stringArgument(args, 'path', false));
  const files = await filesUnder(realRoot, target);
  const lines: string[] = [];
  for (const file of files) {
    const { size } = await lstat(file);
    lines.push(`${toRelative(realRoot, file)}  ${size} bytes`);
  }
  return lines.length === 0 ? '(no files)' : lines.join('\n');
}

async function readWorkspaceFile(root: string, args: Record<string, unknown>): Promise<string> {
  const path = stringArgument(args, 'path', true) as string;
  const target = await insideWorkspace(root, path);
  const stat = await lstat(target);
  if (!stat.isFile()) throw new ToolInputError(`"${path}" is a folder: use list_files`);
  return readFile(target, 'utf8');
}

async function searchFiles(root: string, args: Record<string, unknown>): Promise<string> {
  const pattern = stringArgument(args, 'pattern', true) as string;
  const realRoot = await realpath(root);
  const target = await insideWorkspace(root, stringArgument(args, 'path', false));
  const needle = pattern.toLowerCase();
  const matches: string[] = [];
  let total = 0;
  for (const file of await filesUnder(realRoot, target)) {
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, index) => {
      if (!line.toLowerCase().includes(needle)) return;
      total++;
      if (matches.length < MAX_SEARCH_MATCHES) {
        matches.push(`${toRelative(realRoot, file)}:${index + 1}: ${line}`);
      }
    });
  }
  if (total === 0) return `No line contains "${pattern}".`;
  const more = total > matches.length ? `\n(${total - matches.length} more matches not shown)` : '';
  return `${total} line${total === 1 ? '' : 's'} contain "${pattern}":\n${matches.join('\n')}${more}`;
}

async function scanWorkspace(root: string, signal: AbortSignal): Promise<string> {
  signal.throwIfAborted();
  const realRoot = await realpath(root);
  const findings: string[] = [];
  const files = await walk(realRoot, realRoot);
  for (const file of files) {
    // Stands in for an expensive check; the turn's signal stops it when the user interrupts.
    await delay(SCAN_DELAY_MS, undefined, { signal });
    const text = await readFile(file, 'utf8');
    if (SECRET_LIKE.test(text)) findings.push(toRelative(realRoot, file));
  }
  return findings.length === 0
    ? `Scanned ${files.length} files: no secrets found.`
    : `Scanned ${files.length} files: possible secrets in ${findings.join(', ')}.`;
}

/**
 * Runs one tool call against the workspace. A bad argument or a refused path is reported to the
 * model as an error output (`isError`), never thrown, so one bad call does not fail the turn.
 * An abort (the user interrupted the turn) is rethrown.
 */
export async function runTool(
  root: string,
  call: FunctionCallItem,
  signal: AbortSignal,
): Promise<ToolRun> {
  try {
    const args = argumentsOf(call);
    switch (call.name) {
      case 'list_files':
        return { output: await listFiles(root, args), isError: false };
      case 'read_file':
        return { output: await readWorkspaceFile(root, args), isError: false };
      case 'search_files':
        return { output: await searchFiles(root, args), isError: false };
      case 'calculator': {
        const expression = stringArgument(args, 'expression', true) as string;
        return { output: formatNumber(evaluateExpression(expression)), isError: false };
      }
      case 'scan_workspace':
        return { output: await scanWorkspace(root, signal), isError: false };
      default:
        return {
          output: `Error: there is no tool named "${call.name}". The tools are ${TOOL_DEFINITIONS.map((tool) => tool.name).join(', ')}.`,
          isError: true,
        };
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (error instanceof ToolInputError || error instanceof CalculatorError) {
      return { output: `Error from ${call.name}: ${error.message}.`, isError: true };
    }
    throw error;
  }
}
