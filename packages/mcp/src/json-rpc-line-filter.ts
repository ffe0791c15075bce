import { type Readable, Transform } from 'node:stream';
import { findJsonShapeProblem } from '@episodic/core/adapter';

/** A JSON-RPC error response the filter answers with itself. */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** JSON-RPC's codes for what never reaches the server (the SDK would silently skip it). */
export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
/** Implementation-defined: the server is stopping and did not run the request. */
export const JSON_RPC_SHUTTING_DOWN = -32000;

/** The longest line read; the SDK's own read buffer holds 10 MiB. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

const TOO_LARGE = `Invalid Request: the message is larger than 10 MiB (${MAX_LINE_BYTES} bytes); it was not read. Send a smaller message, one per line.`;

const NEWLINE = 0x0a;

/** The stdin side of the stdio server, between the process's stdin and the SDK's transport. */
export interface JsonRpcLineFilter {
  /** What the SDK transport reads: the well-formed JSON-RPC lines only. */
  readonly stream: Readable;
  /**
   * From now on requests are answered with `-32000` ("shutting down") instead of being passed on;
   * responses and notifications still pass (a client may answer the server or cancel a call).
   */
  stopAccepting(): void;
  /** Stops reading the source (so a process holding nothing else open can exit). */
  detach(): void;
}

function idOf(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function isJsonRpcMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const record = message as Record<string, unknown>;
  if (record.jsonrpc !== '2.0') return false;
  if (typeof record.method === 'string') return true;
  return 'id' in record && ('result' in record || 'error' in record);
}

/** A JSON-RPC text parsed, or the error response that answers it. */
export type ParsedJsonRpcText =
  | { ok: true; value: unknown }
  | { ok: false; error: JsonRpcErrorResponse };

/**
 * Parses one JSON-RPC text (a stdio line, an HTTP body) as every transport must: text that is not
 * JSON is a `-32700` parse error; a key given twice in one object (`JSON.parse` would keep the last
 * value) or nesting deeper than 512 is `-32600`, naming the key or the place, with the message's
 * `id`. `unit` names the text in the message and how to send it right.
 */
function parseJsonRpcText(text: string, unit: 'line' | 'body'): ParsedJsonRpcText {
  const refuse = (id: string | number | null, code: number, message: string) =>
    ({ ok: false, error: { jsonrpc: '2.0', id, error: { code, message } } }) as const;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const how =
      unit === 'line' ? 'one JSON-RPC message per line' : 'one JSON-RPC message (or a batch)';
    return refuse(
      null,
      JSON_RPC_PARSE_ERROR,
      `Parse error: the ${unit} is not JSON (${(error as Error).message}). Send ${how}.`,
    );
  }
  const problem = findJsonShapeProblem(text);
  if (problem !== null) {
    return refuse(
      idOf(value),
      JSON_RPC_INVALID_REQUEST,
      `Invalid Request: ${problem.message}. It was not run.`,
    );
  }
  return { ok: true, value };
}

/** Decodes strictly: bytes that are not UTF-8 throw instead of becoming U+FFFD. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `parseJsonRpcText` over bytes, refusing bytes that are not UTF-8 with `-32700` first: a
 * lenient decoder would turn them into U+FFFD and the server would store a changed message.
 */
export function parseJsonRpcBytes(bytes: Uint8Array, unit: 'line' | 'body'): ParsedJsonRpcText {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return {
      ok: false,
      error: {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: JSON_RPC_PARSE_ERROR,
          message: `Parse error: the ${unit} is not valid UTF-8. Send the JSON-RPC message encoded as UTF-8.`,
        },
      },
    };
  }
  return parseJsonRpcText(text, unit);
}

/**
 * Reads newline-delimited JSON-RPC from `source` and passes each well-formed message on, unchanged.
 * A line that is not JSON is answered with a `-32700` parse error, and JSON that is not a JSON-RPC
 * message with `-32600`, as the JSON-RPC spec asks (the SDK's transport would skip such lines
 * without a word, leaving a client waiting). So is a message with a key given twice in one object
 * (`JSON.parse` would keep the last value) or nested deeper than 512, and a line longer than
 * 10 MiB: each bad line gets exactly one answer, and the next line is read as usual. `reply`
 * writes those answers to stdout.
 */
export function createJsonRpcLineFilter(
  source: Readable,
  reply: (response: JsonRpcErrorResponse) => void,
): JsonRpcLineFilter {
  // Lines are cut from bytes (a newline byte is never part of a UTF-8 sequence) and each line is
  // decoded strictly on its own, so bytes that are not UTF-8 are refused, never replaced.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  let accepting = true;
  const answer = (id: string | number | null, code: number, message: string) =>
    reply({ jsonrpc: '2.0', id, error: { code, message } });

  const handle = (stream: Transform, raw: Buffer) => {
    const bytes = raw.at(-1) === 0x0d ? raw.subarray(0, -1) : raw;
    if (bytes.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d)) return;
    const parsed = parseJsonRpcBytes(bytes, 'line');
    if (!parsed.ok) {
      reply(parsed.error);
      return;
    }
    const message = parsed.value;
    if (!isJsonRpcMessage(message)) {
      answer(
        idOf(message),
        JSON_RPC_INVALID_REQUEST,
        'Invalid Request: expected a JSON-RPC 2.0 message ({"jsonrpc": "2.0", "method": …} or a response).',
      );
      return;
    }
    const record = message as Record<string, unknown>;
    if (!accepting && typeof record.method === 'string' && 'id' in record) {
      answer(
        idOf(message),
        JSON_RPC_SHUTTING_DOWN,
        'The server is shutting down: this request was not run. Start the server again and repeat it.',
      );
      return;
    }
    stream.push(Buffer.concat([bytes, Buffer.of(NEWLINE)]));
  };

  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0;
      if (skipping) {
        // The rest of a line already answered as too large: dropped up to its end, unread.
        const end = chunk.indexOf(NEWLINE);
        if (end === -1) {
          done();
          return;
        }
        skipping = false;
        start = end + 1;
      }
      for (
        let end = chunk.indexOf(NEWLINE, start);
        end !== -1;
        end = chunk.indexOf(NEWLINE, start)
      ) {
        const tail = chunk.subarray(start, end);
        const line = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
        pending = [];
        pendingBytes = 0;
        start = end + 1;
        if (line.length > MAX_LINE_BYTES) answer(null, JSON_RPC_INVALID_REQUEST, TOO_LARGE);
        else handle(this, line);
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
      }
      if (pendingBytes > MAX_LINE_BYTES) {
        // Too long to be a message: answered once, and the rest of the line is dropped.
        answer(null, JSON_RPC_INVALID_REQUEST, TOO_LARGE);
        pending = [];
        pendingBytes = 0;
        skipping = true;
      }
      done();
    },
    flush(done) {
      // A last line without its newline is incomplete: it is not a message (nor an error to answer).
      pending = [];
      done();
    },
  });
  source.pipe(stream);
  return {
    stream,
    stopAccepting() {
      accepting = false;
    },
    detach() {
      source.unpipe(stream);
      source.pause();
    },
  };
}
