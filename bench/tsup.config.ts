import { defineConfig } from 'tsup';

// `pnpm build` empties dist first (see package.json); the two configs only add files to it.
export default defineConfig([
  {
    // The harness: dependencies stay external, exactly as a user's application imports them.
    entry: {
      main: 'src/main.ts',
      worker: 'src/worker.ts',
      'probes/lock-writer': 'src/probes/lock-writer.ts',
      'probes/postgres-writer': 'src/probes/postgres-writer.ts',
    },
    format: ['esm'],
    target: 'node20',
    // The peers of the comparison are dev dependencies: imported at run time like the rest.
    external: [/^@langchain\//, /^@mastra\//],
    sourcemap: true,
    clean: false,
  },
  {
    // Cold-start probes are bundled the way a shipped CLI or MCP server should be: zod and the
    // MCP SDK inlined, the native better-sqlite3 addon external.
    entry: {
      'probes/cli-probe': 'src/probes/cli-probe.ts',
      'probes/mcp-echo-server': 'src/probes/mcp-echo-server.ts',
    },
    format: ['esm'],
    target: 'node20',
    noExternal: ['zod', /^@modelcontextprotocol\//],
    external: ['better-sqlite3'],
    splitting: false,
    sourcemap: false,
    clean: false,
  },
]);
