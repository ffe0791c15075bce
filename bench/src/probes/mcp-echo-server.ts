// The MCP probe (research C3/C4): the official SDK over stdio with ten tools declared with zod
// schemas (the size of a real server's tool list), bundled. `echo` answers with its input.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'episodic-bench-echo', version: '1.0.0' });

server.registerTool(
  'echo',
  { description: 'Returns its input text.', inputSchema: z.object({ text: z.string() }) },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

const names = [
  'create_item',
  'add_step',
  'complete_item',
  'get_item',
  'get_timeline',
  'delete_item',
  'query_items',
  'replay_items',
  'search_items',
];
for (const name of names) {
  server.registerTool(
    name,
    {
      description: `Probe tool ${name}.`,
      inputSchema: z.object({
        id: z.string().min(1).describe('An id'),
        limit: z.number().int().min(1).max(500).optional().describe('How many'),
        filter: z
          .object({ key: z.string(), value: z.union([z.string(), z.number(), z.boolean()]) })
          .optional(),
      }),
    },
    async ({ id }) => ({ content: [{ type: 'text', text: id }] }),
  );
}

await server.connect(new StdioServerTransport());
