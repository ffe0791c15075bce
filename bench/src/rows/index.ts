import type { RowModule } from '../lib/row-module.js';
import { claudeAgentSdkModule } from './claude-agent-sdk.js';
import { cliStartModule } from './cli-start.js';
import { episodicLogModule } from './episodic-log.js';
import { googleAdkModule } from './google-adk.js';
import { langgraphModule } from './langgraph.js';
import { ledgerGcModule } from './ledger-gc.js';
import { ledgerInsertModule } from './ledger-insert.js';
import { ledgerNodeSqliteModule } from './ledger-node-sqlite.js';
import { ledgerQueryModule } from './ledger-query.js';
import { ledgerSearchModule } from './ledger-search.js';
import { mcpModule } from './mcp.js';
import { openaiAgentsModule } from './openai-agents.js';
import { peersModule } from './peers.js';
import { postgresModule } from './postgres.js';
import { postgresSessionsModule } from './postgres-sessions.js';
import { runAppendModule } from './run-append.js';
import { runReadModule } from './run-read.js';
import { sessionModule } from './session.js';
import { taskModule } from './task.js';
import { uiPagesModule } from './ui-pages.js';
import { verifyModule } from './verify.js';

/** Every row module, in QUALITY.md's table order. */
export const MODULES: readonly RowModule[] = [
  runAppendModule,
  runReadModule,
  episodicLogModule,
  sessionModule,
  taskModule,
  peersModule,
  ledgerInsertModule,
  ledgerQueryModule,
  ledgerSearchModule,
  ledgerNodeSqliteModule,
  ledgerGcModule,
  verifyModule,
  postgresModule,
  postgresSessionsModule,
  cliStartModule,
  mcpModule,
  uiPagesModule,
  langgraphModule,
  claudeAgentSdkModule,
  openaiAgentsModule,
  googleAdkModule,
];
