// Stands in for the SDK's `MemorySession` when sdk-conformance.test.ts runs the SDK's own
// MemorySession tests (packages/agents-core/test/memorySession.test.ts): the same constructor
// options (`sessionId`, `initialItems`, `logger`), each instance an `EpisodicSession` on the run
// store of the backend under test. Each instance gets a scope of its own, so tests that reuse a
// session id start from an empty history, as a new MemorySession does.
import type { RunStore } from '@episodic/core';
import type { AgentInputItem } from '@openai/agents-core';
import { EpisodicSession, type EpisodicSessionOptions } from '../episodic-session.js';

let current: RunStore | undefined;
let instances = 0;

/**
 * The run store of the backend under test, looked up at each call: the SDK's tests create some
 * sessions while their file is collected, before a backend is open.
 */
const runs = new Proxy({} as RunStore, {
  get: (_target, name) => {
    if (name === 'then') return undefined;
    return (...args: unknown[]) => {
      if (current === undefined) throw new Error('no backend is open (useRunStore)');
      return (current[name as keyof RunStore] as (...values: unknown[]) => unknown).apply(
        current,
        args,
      );
    };
  },
});

/** The run store the next sessions are created on. */
export function useRunStore(runs: RunStore | undefined): void {
  current = runs;
}

export class MemorySession extends EpisodicSession {
  private readonly ready: Promise<void>;

  constructor(
    options: {
      sessionId?: string;
      initialItems?: AgentInputItem[];
      logger?: EpisodicSessionOptions['logger'];
    } = {},
  ) {
    instances += 1;
    super({
      runs,
      scope: `sdk-test-${instances}`,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
    this.ready = options.initialItems?.length
      ? super.addItems(options.initialItems)
      : Promise.resolve();
  }

  override async getItems(limit?: number): Promise<AgentInputItem[]> {
    await this.ready;
    return super.getItems(limit);
  }
  override async addItems(items: AgentInputItem[]): Promise<void> {
    await this.ready;
    return super.addItems(items);
  }
  override async popItem(): Promise<AgentInputItem | undefined> {
    await this.ready;
    return super.popItem();
  }
  override async clearSession(): Promise<void> {
    await this.ready;
    return super.clearSession();
  }
  override async applyHistoryMutations(
    args: Parameters<EpisodicSession['applyHistoryMutations']>[0],
  ): Promise<void> {
    await this.ready;
    return super.applyHistoryMutations(args);
  }
  override async applyHistoryTransaction(
    args: Parameters<EpisodicSession['applyHistoryTransaction']>[0],
  ): Promise<void> {
    await this.ready;
    return super.applyHistoryTransaction(args);
  }
}
