#!/usr/bin/env node
// The `episodic-mcp` command. This committed file starts the build in dist/, so package managers can
// link the bin before dist/ exists (a fresh clone of the repository, before `pnpm build`).
try {
  await import('../dist/bin/episodic-mcp.js');
} catch (error) {
  if (
    error?.code !== 'ERR_MODULE_NOT_FOUND' ||
    !String(error.message).includes('/dist/bin/episodic-mcp.js')
  ) {
    throw error;
  }
  process.stderr.write(
    'episodic-mcp: dist/bin/episodic-mcp.js is missing: build the package first (pnpm build).\n',
  );
  process.exitCode = 1;
}
