import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The workspace the demo agent works in: a few small files and one long log. */
export interface SampleWorkspace {
  /** The workspace's absolute path. */
  readonly root: string;
  /** Relative path → content, in the order the files were written. */
  readonly files: ReadonlyMap<string, string>;
}

/** The long log the agent reads: longer than the 8,000-character tool-output limit. */
export const LONG_LOG_PATH = 'logs/server.log';

/** The invoice, and the total its rows add up to (what a correct agent reports). */
export const INVOICE_PATH = 'invoice.csv';
export const INVOICE_TOTAL = 367.9;

const README = `# Acme order service (sample workspace)

This folder was created by the Episodic demo. The demo agent lists, reads and searches
these files with real tools, and computes with a calculator that parses arithmetic
safely (no eval).

- \`invoice.csv\`: the items of one invoice (quantity and unit price).
- \`notes.md\`: notes from the last planning meeting.
- \`src/orders.ts\`: the order handler.
- \`logs/server.log\`: a day of server logs, longer than a model sees at once.
`;

const NOTES = `# Planning notes

- Ship the order export before the end of the sprint.
- TODO: retry payment calls that time out (see the server log).
- TODO: add a test for orders with zero items.
- Decision: keep invoices in CSV until the finance team asks for more.
- The support contract is billed per hour (see invoice.csv).
`;

const INVOICE = `item,quantity,unit_price
Widget A,4,12.50
Widget B,2,7.25
Support hours,3,95.00
Shipping,1,18.40
`;

const ORDERS = `export interface Order {
  id: number;
  items: { sku: string; quantity: number }[];
}

export function validateOrder(order: Order): string | null {
  if (order.items.length === 0) return 'an order needs at least one item';
  for (const item of order.items) {
    if (item.quantity <= 0) return \`quantity of \${item.sku} must be positive\`;
  }
  return null;
}
`;

/** Errors sit in the middle of the log, in the part a truncated tool output leaves out. */
const LOG_ERRORS = new Map<number, string>([
  [100, 'ERROR payment-gateway timed out after 3000 ms (order 1100)'],
  [131, 'ERROR payment-gateway timed out after 3000 ms (order 1131)'],
  [162, 'ERROR inventory lookup failed: sku W-B not found (order 1162)'],
]);

function serverLog(): string {
  const lines: string[] = [];
  const start = Date.UTC(2026, 2, 2, 9, 0, 0);
  for (let index = 0; index < 260; index++) {
    const ts = new Date(start + index * 17_000).toISOString().replace('.000Z', 'Z');
    const order = 1000 + index;
    const error = LOG_ERRORS.get(index);
    if (error !== undefined) {
      lines.push(`${ts} ${error}`);
    } else {
      const method = index % 3 === 0 ? 'POST' : 'GET';
      const latency = 8 + ((index * 37) % 41);
      lines.push(`${ts} INFO  ${method} /orders/${order} 200 ${latency}ms`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Writes the sample workspace under `root` (which must not hold other files). */
export async function createSampleWorkspace(root: string): Promise<SampleWorkspace> {
  const files = new Map<string, string>([
    ['README.md', README],
    ['notes.md', NOTES],
    [INVOICE_PATH, INVOICE],
    ['src/orders.ts', ORDERS],
    [LONG_LOG_PATH, serverLog()],
  ]);
  for (const [path, content] of files) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, 'utf8');
  }
  return { root, files };
}
