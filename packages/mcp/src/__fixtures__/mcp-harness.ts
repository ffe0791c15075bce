import { isDeepStrictEqual } from 'node:util';
import { createArtifactStore, createLedger, createRunStore } from '@episodic/core';
import type { ArtifactStoreAdapter, LedgerAdapter, RunStoreAdapter } from '@episodic/core/adapter';
import {
  createMemoryArtifactStoreAdapter,
  createMemoryLedgerAdapter,
  createMemoryRunStoreAdapter,
} from '@episodic/core/adapter';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createEpisodicMcpServer, type EpisodicMcpServerOptions } from '../episodic-mcp-server.js';
import type { EpisodicMcpStores } from '../episodic-tools.js';
import type { EpisodicMcpLogEntry } from '../logger.js';

/** Wraps every method of an adapter so each backend call is counted by name. */
export function counted<Adapter extends object>(
  adapter: Adapter,
  calls: Map<string, number>,
  prefix: string,
): Adapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const name = `${prefix}.${String(property)}`;
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** In-memory stores whose adapters count every backend call. */
export interface CountingStores {
  stores: EpisodicMcpStores;
  /** Backend calls by `ledger.query`, `runs.append`, `artifacts.upsertArtifact`… */
  calls: Map<string, number>;
  /** All backend calls so far. */
  total(): number;
  adapters: { ledger: LedgerAdapter; runs: RunStoreAdapter; artifacts: ArtifactStoreAdapter };
}

export function countingStores(): CountingStores {
  const calls = new Map<string, number>();
  const adapters = {
    ledger: counted(createMemoryLedgerAdapter(), calls, 'ledger'),
    runs: counted(createMemoryRunStoreAdapter(), calls, 'runs'),
    artifacts: counted(createMemoryArtifactStoreAdapter(), calls, 'artifacts'),
  };
  return {
    stores: {
      ledger: createLedger(adapters.ledger),
      runs: createRunStore(adapters.runs),
      artifacts: createArtifactStore(adapters.artifacts),
    },
    calls,
    total: () => [...calls.values()].reduce((sum, count) => sum + count, 0),
    adapters,
  };
}

/** A tool call's outcome: the parsed JSON body and whether it is an error. */
export interface ToolOutcome {
  isError: boolean;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test results are inspected field by field.
  body: any;
  /** The result's `structuredContent` (the client checked it against the tool's outputSchema). */
  structured: unknown;
}

/** An official SDK client connected in process to an Episodic server. */
export interface ConnectedClient {
  client: Client;
  call(name: string, args?: unknown): Promise<ToolOutcome>;
  logs: EpisodicMcpLogEntry[];
  close(): Promise<void>;
}

export async function connect(options: EpisodicMcpServerOptions): Promise<ConnectedClient> {
  const logs: EpisodicMcpLogEntry[] = [];
  const withLogger =
    'tools' in options
      ? options
      : {
          ...options,
          logger: options.logger ?? ((entry: EpisodicMcpLogEntry) => logs.push(entry)),
        };
  const server = createEpisodicMcpServer(withLogger);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'episodic-test', version: '1.0.0' });
  await client.connect(clientSide);
  // The client checks each result's structuredContent against the outputSchema it listed.
  await client.listTools();
  return {
    client,
    logs,
    async call(name, args = {}) {
      const result = await client.callTool({
        name,
        arguments: args as Record<string, unknown>,
      });
      const block = (result.content as Array<{ type: string; text?: string }>)[0];
      const text = block?.type === 'text' ? (block.text ?? '') : '';
      const body = JSON.parse(text);
      const isError = result.isError === true;
      // Every success carries the text's JSON as structuredContent; an error only the text.
      if (
        isError
          ? result.structuredContent !== undefined
          : !isDeepStrictEqual(result.structuredContent, body)
      ) {
        throw new Error(
          `${name}: structuredContent differs from the text: ${JSON.stringify(result.structuredContent)}`,
        );
      }
      return { isError, text, body, structured: result.structuredContent };
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** A UUID that no store holds. */
export const UNKNOWN_ID = '0f0e0d0c-0b0a-4909-8807-060504030201';

/** seed 004's create_episode example. */
export const CREATE_ARGUMENTS = {
  task_description: 'Implement JWT-based authentication',
  domain: 'web-api',
  task_type: 'code_generation',
  language: 'rust',
  framework: 'axum',
  tags: ['auth', 'security', 'api'],
  complexity: 'complex',
} as const;
