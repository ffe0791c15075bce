#!/usr/bin/env node
process.stderr.write('episodic-mcp: the MCP server is not built yet (see the mcp issue).\n');
process.exitCode = 1;
