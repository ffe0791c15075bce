import {
  CHARS_PER_TOKEN,
  estimateTokens,
  type FunctionCallItem,
  type InputItem,
} from '@episodic/core';
import { formatNumber } from '../tools/calculator.js';
import type {
  DemoModel,
  ModelTurnRequest,
  ModelTurnResponse,
  SummarizeRequest,
} from './demo-model.js';

/**
 * The built-in model: deterministic rules instead of a neural network, so the demo runs offline
 * and its results can be checked. It reads only what it is sent (the assembled input), so it
 * sees exactly what a real model would: truncated tool outputs, healed calls, interrupt notices
 * and checkpoint summaries. Each call decides one next step from the current turn's request and
 * the tool outputs that followed it.
 */

type Step =
  | { readonly call: { readonly name: string; readonly args: Record<string, unknown> } }
  | { readonly answer: string };

interface Progress {
  readonly call: FunctionCallItem;
  readonly args: Record<string, unknown>;
  readonly output: string | undefined;
}

interface TurnView {
  /** The user's request in this turn. */
  readonly request: string;
  readonly lower: string;
  /** The calls made since the request, with their outputs. */
  readonly progress: readonly Progress[];
  /** Every text the model was sent before the request (summaries, answers, notices). */
  readonly history: readonly string[];
}

const BOUNDARY_MESSAGE = /^<(checkpoint|interrupt|overflow)>\n/;
const TRUNCATION_MARKER = /\(truncated: (\d+) chars omitted\)/;
const INVOICE_TOTAL_SENTENCE = /invoice adds up to (-?[\d,]+(?:\.\d+)?)/i;
const FILE_PATH = /\b((?:[\w-]+\/)*[\w-]+\.(?:md|csv|log|ts|txt|json))\b/;
const EXPRESSION =
  /(?:^|[^\w.])((?:\(?\s*-?\d+(?:\.\d+)?\s*\)?\s*[-+*/%^]\s*)+\(?\s*-?\d+(?:\.\d+)?\s*\)?)/;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part?.text === 'string' ? (part.text as string) : ''))
      .join('');
  }
  return '';
}

function parseArguments(call: FunctionCallItem): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function viewTurn(items: readonly InputItem[]): TurnView {
  let requestIndex = -1;
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as InputItem;
    if (
      item.type === 'message' &&
      item.role === 'user' &&
      !BOUNDARY_MESSAGE.test(textOf(item.content))
    ) {
      requestIndex = index;
      break;
    }
  }
  const request =
    requestIndex >= 0 ? textOf((items[requestIndex] as { content: unknown }).content) : '';
  const outputs = new Map<string, string>();
  for (const item of items.slice(requestIndex + 1)) {
    if (item.type === 'function_call_output')
      outputs.set(String(item.call_id), textOf(item.output) || String(item.output));
  }
  const progress: Progress[] = [];
  for (const item of items.slice(requestIndex + 1)) {
    if (item.type === 'function_call') {
      const call = item as FunctionCallItem;
      progress.push({ call, args: parseArguments(call), output: outputs.get(call.call_id) });
    }
  }
  const history: string[] = [];
  for (const item of items.slice(0, Math.max(requestIndex, 0))) {
    if (item.type === 'message') history.push(textOf(item.content));
  }
  return { request, lower: request.toLowerCase(), progress, history };
}

const lastOutput = (view: TurnView, tool: string) =>
  [...view.progress].reverse().find((step) => step.call.name === tool && step.output !== undefined);

const call = (name: string, args: Record<string, unknown> = {}): Step => ({ call: { name, args } });

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').replace(/^#+\s*/, '').trim();
}

function money(value: number): string {
  return value.toFixed(2);
}

/** The file list of a `list_files` output: `path  N bytes` per line. */
function listedFiles(output: string): Array<{ path: string; bytes: number }> {
  return output
    .split('\n')
    .map((line) => /^(.+?)\s{2}(\d+) bytes$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ path: match[1] as string, bytes: Number(match[2]) }));
}

/** `4*12.50 + 2*7.25 …` from the rows of a `item,quantity,unit_price` CSV. */
function invoiceExpression(csv: string): string | null {
  const terms = csv
    .split('\n')
    .slice(1)
    .map((line) => line.split(','))
    .filter((cells) => cells.length === 3 && cells[1] !== '' && cells[2] !== '')
    .map((cells) => `${(cells[1] as string).trim()}*${(cells[2] as string).trim()}`);
  return terms.length === 0 ? null : terms.join(' + ');
}

function failedStep(view: TurnView): Step | null {
  const failed = view.progress.find((step) => step.output?.startsWith('Error'));
  return failed === undefined
    ? null
    : { answer: `I could not finish: ${failed.call.name} reported "${failed.output}".` };
}

/** Read every file, one call per round (a long task that meets the agent's step limit). */
function readEveryFile(view: TurnView): Step {
  const listing = lastOutput(view, 'list_files');
  if (listing?.output === undefined) return call('list_files');
  const files = listedFiles(listing.output);
  const small = files.filter((file) => file.bytes <= 8_000);
  const read = new Set(
    view.progress
      .filter((step) => step.call.name === 'read_file')
      .map((step) => String(step.args.path)),
  );
  const next = small.find((file) => !read.has(file.path));
  if (next !== undefined) return call('read_file', { path: next.path });
  const summaries = view.progress
    .filter((step) => step.call.name === 'read_file' && step.output !== undefined)
    .map((step) => `${String(step.args.path)} (${firstLine(step.output as string)})`);
  const skipped = files.filter((file) => file.bytes > 8_000).map((file) => file.path);
  return {
    answer: `I read ${summaries.join('; ')}.${skipped.length > 0 ? ` I skipped ${skipped.join(', ')}: too long to read whole.` : ''}`,
  };
}

function invoiceTotal(view: TurnView): Step {
  const computed = lastOutput(view, 'calculator');
  if (computed?.output !== undefined) {
    const total = Number(computed.output);
    return {
      answer: `The invoice adds up to ${money(total)} (${String(computed.args.expression)}).`,
    };
  }
  const csv = lastOutput(view, 'read_file');
  if (csv?.output === undefined) return call('read_file', { path: 'invoice.csv' });
  const expression = invoiceExpression(csv.output);
  if (expression === null) return { answer: 'invoice.csv has no rows I can add up.' };
  return call('calculator', { expression });
}

function knownInvoiceTotal(view: TurnView): string | null {
  for (let index = view.history.length - 1; index >= 0; index--) {
    const match = INVOICE_TOTAL_SENTENCE.exec(view.history[index] as string);
    if (match) return (match[1] as string).replace(/,/g, '');
  }
  return null;
}

function discountedInvoice(view: TurnView): Step {
  const percent = Number(/(\d+(?:\.\d+)?)\s*%/.exec(view.request)?.[1] ?? '10');
  const computed = lastOutput(view, 'calculator');
  if (computed?.output !== undefined) {
    return {
      answer: `With a ${formatNumber(percent)}% discount the invoice comes to ${money(Number(computed.output))}.`,
    };
  }
  const total = knownInvoiceTotal(view);
  if (total !== null) return call('calculator', { expression: `${total} * (1 - ${percent}/100)` });
  const csv = lastOutput(view, 'read_file');
  if (csv?.output === undefined) return call('read_file', { path: 'invoice.csv' });
  const expression = invoiceExpression(csv.output) ?? '0';
  return call('calculator', { expression: `(${expression}) * (1 - ${percent}/100)` });
}

function recall(view: TurnView): Step {
  if (/invoice|total/.test(view.lower)) {
    const total = knownInvoiceTotal(view);
    return {
      answer:
        total === null
          ? 'I have not added up the invoice yet in this conversation; ask me to and I will.'
          : `From earlier in this conversation: the invoice adds up to ${money(Number(total))}.`,
    };
  }
  const summary = view.history.find((text) => text.startsWith('<checkpoint>'));
  const asked = view.history.filter((text) => !BOUNDARY_MESSAGE.test(text)).length;
  return {
    answer:
      summary === undefined
        ? `So far we exchanged ${asked} messages; I have no summary yet.`
        : `Here is what I remember (from the checkpoint summary): ${summary
            .replace(/^<checkpoint>\n/, '')
            .replace(/\n<\/checkpoint>$/, '')
            .split('\n')
            .slice(1, 6)
            .map((line) => line.replace(/^- /, ''))
            .join(' ')}`,
  };
}

function inspectLog(view: TurnView, path: string): Step {
  const search = lastOutput(view, 'search_files');
  const read = lastOutput(view, 'read_file');
  if (search?.output !== undefined) {
    const omitted = read?.output === undefined ? null : TRUNCATION_MARKER.exec(read.output);
    const lines = search.output
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^[^:]+:\d+: /, ''));
    return {
      answer: `${omitted ? `My view of ${path} left out ${Number(omitted[1]).toLocaleString('en-US')} characters in the middle, so I searched the whole file. ` : ''}${search.output.split('\n')[0]} ${lines.join('; ')}.`,
    };
  }
  if (read?.output === undefined) return call('read_file', { path });
  if (TRUNCATION_MARKER.test(read.output)) {
    // The middle of the file was not shown: check whether it hides errors before answering.
    return call('search_files', { pattern: 'ERROR', path });
  }
  const errors = read.output.split('\n').filter((line) => line.includes('ERROR'));
  return {
    answer: `${path} has ${errors.length} ERROR lines${errors.length > 0 ? `: ${errors.join('; ')}` : ''}.`,
  };
}

function readOne(view: TurnView, path: string): Step {
  const read = lastOutput(view, 'read_file');
  if (read?.output === undefined) return call('read_file', { path });
  const lines = read.output.split('\n').filter((line) => line.trim() !== '');
  return {
    answer: `${path} has ${lines.length} lines; it starts with "${firstLine(read.output)}".`,
  };
}

function listAll(view: TurnView): Step {
  const listing = lastOutput(view, 'list_files');
  if (listing?.output === undefined) return call('list_files');
  const files = listedFiles(listing.output);
  return {
    answer: `The workspace has ${files.length} files: ${files.map((file) => file.path).join(', ')}.`,
  };
}

function calculate(view: TurnView, expression: string): Step {
  const computed = lastOutput(view, 'calculator');
  if (computed?.output === undefined) return call('calculator', { expression });
  return { answer: `${expression.trim()} = ${computed.output}.` };
}

function scan(view: TurnView): Step {
  const scanned = lastOutput(view, 'scan_workspace');
  if (scanned?.output === undefined) return call('scan_workspace');
  return { answer: scanned.output };
}

const HELP =
  'I am the built-in demo model: I follow simple rules, offline. Ask me to list the files, read ' +
  'or search a file (e.g. "read notes.md", "find TODO"), check logs/server.log for errors, add ' +
  'up the invoice, compute something like 2 * (3 + 4), or recap what we did so far.';

/** Picks the next step for the current turn. */
export function decideStep(items: readonly InputItem[]): Step {
  const view = viewTurn(items);
  const failed = failedStep(view);
  if (failed !== null) return failed;
  const { lower } = view;
  const path = FILE_PATH.exec(view.request)?.[1];
  if (/\b(every|each|all)\b.*\bfiles?\b/.test(lower) && /\bread\b/.test(lower))
    return readEveryFile(view);
  if (/discount/.test(lower)) return discountedInvoice(view);
  if (/\b(again|so far|remind|recap|remember)\b/.test(lower)) return recall(view);
  if (/\binvoice\b|\badd(s)? up\b/.test(lower)) return invoiceTotal(view);
  if (/\bscan\b|\bsecrets?\b/.test(lower)) return scan(view);
  if (path?.endsWith('.log') || /\blogs?\b/.test(lower))
    return inspectLog(view, path ?? 'logs/server.log');
  const search = /\b(?:find|search(?: for)?|grep)\s+"?([^"?]+?)"?\s*(?:\?|$|\bin\b)/i.exec(
    view.request,
  );
  if (search && !path) {
    const searched = lastOutput(view, 'search_files');
    if (searched?.output === undefined)
      return call('search_files', { pattern: (search[1] as string).trim() });
    return { answer: searched.output.split('\n').slice(0, 6).join(' ') };
  }
  if (path !== undefined) return readOne(view, path);
  if (/\bfiles?\b|\blist\b/.test(lower)) return listAll(view);
  const expression = EXPRESSION.exec(view.request)?.[1];
  if (expression !== undefined) return calculate(view, expression);
  return { answer: HELP };
}

function callId(turnId: string, round: number): string {
  return `call_${turnId.replace(/-/g, '').slice(0, 12)}_${round}`;
}

const countText = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

/**
 * The summary of a compaction checkpoint: every request of the covered history with the answer
 * it got, plus interrupts and the previous summary, so the next turns keep the facts.
 */
export function summarizeItems(
  items: readonly InputItem[],
  covers: { fromId: number; toId: number },
): string {
  const lines: string[] = [];
  let open: { request: string; tools: string[]; answer: string | null } | null = null;
  const flush = () => {
    if (open === null) return;
    const tools = open.tools.length > 0 ? ` [tools: ${[...new Set(open.tools)].join(', ')}]` : '';
    const answer =
      open.answer === null
        ? 'no answer (the turn stopped before answering)'
        : `answered "${open.answer}"`;
    lines.push(`- Asked "${open.request}"${tools}: ${answer}`);
    open = null;
  };
  for (const item of items) {
    if (item.type === 'message') {
      const text = textOf(item.content);
      const boundary = BOUNDARY_MESSAGE.exec(text);
      if (item.role === 'user' && boundary) {
        flush();
        const body = text.replace(/^<\w+>\n/, '').replace(/\n<\/\w+>$/, '');
        if (boundary[1] === 'checkpoint') {
          lines.push(...body.split('\n').filter((line) => line.startsWith('- ')));
        } else {
          lines.push(`- ${boundary[1] === 'interrupt' ? 'Interrupted' : 'Overflow'}: ${body}`);
        }
      } else if (item.role === 'user') {
        flush();
        open = { request: text, tools: [], answer: null };
      } else if (item.role === 'assistant' && open !== null) {
        open.answer = text.length > 240 ? `${text.slice(0, 239)}…` : text;
      }
    } else if (item.type === 'function_call' && open !== null) {
      open.tools.push(String(item.name));
    }
  }
  flush();
  return [`Summary of episodes ${covers.fromId}–${covers.toId}:`, ...lines].join('\n');
}

/** Creates the built-in deterministic model. */
export function createScriptedModel(): DemoModel {
  return {
    label: 'built-in',
    info: { provider: 'episodic-demo', name: 'scripted-v1' },
    offline: true,
    async respond(request: ModelTurnRequest): Promise<ModelTurnResponse> {
      request.signal.throwIfAborted();
      const step = decideStep(request.items);
      const output: InputItem[] =
        'answer' in step
          ? [{ type: 'message', role: 'assistant', content: step.answer }]
          : [
              {
                type: 'function_call',
                call_id: callId(request.turnId, request.round),
                name: step.call.name,
                arguments: JSON.stringify(step.call.args),
              },
            ];
      const inputTokens =
        request.items.reduce((sum, item) => sum + estimateTokens(item), 0) +
        countText(request.system) +
        countText(JSON.stringify(request.tools));
      const outputTokens = output.reduce((sum, item) => sum + estimateTokens(item), 0);
      return {
        output,
        usage: { inputTokens, outputTokens },
        stopReason: 'answer' in step ? 'end_turn' : 'tool_use',
      };
    },
    async summarize(request: SummarizeRequest): Promise<string> {
      return summarizeItems(request.items, request.covers);
    },
  };
}
