// What the session kill -9 children and checks of store-fs and store-sqlite share. Structural
// types, so this file needs no core import (each package passes core's functions in).

/** The part of a session these steps use. */
interface TurnSession {
  readonly revision: number;
  readonly log: {
    read(query: { fromId: number; type: 'item' }): ReadonlyArray<{
      meta: { source: string };
      payload: unknown;
    }>;
  };
  runTurn(
    input: string,
    model: (request: { items: readonly unknown[] }) => Promise<{ output: unknown[] }>,
  ): Promise<{ revision: number }>;
}

/** Core's session functions, as the caller imports them. */
export interface SessionApi<Store> {
  createSession(options: { store: Store; id: string }): TurnSession;
  loadSession(store: Store, sessionId: string): Promise<TurnSession>;
}

/** The input of the turn that makes revision `revision`: the log must hold exactly these. */
export function turnText(revision: number): string {
  return `turn ${revision}`;
}

/** Answers every turn with one assistant message: a turn's commit is its input and this. */
async function echo(request: { items: readonly unknown[] }) {
  return {
    output: [{ type: 'message', role: 'assistant', content: `seen ${request.items.length} items` }],
  };
}

/**
 * Runs turns on one session until killed, printing `ack <revision>` once each commit resolved.
 * The store should fold often (a small fold policy), so kills land in commits and in folds.
 */
export async function commitForever<Store>(
  api: SessionApi<Store>,
  sessions: Store,
  sessionId: string,
  write: (line: string) => void,
): Promise<never> {
  let session: TurnSession;
  try {
    session = await api.loadSession(sessions, sessionId);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'NOT_FOUND') throw error;
    session = api.createSession({ store: sessions, id: sessionId });
  }
  for (;;) {
    const result = await session.runTurn(turnText(session.revision + 1), echo);
    write(`ack ${result.revision}`);
  }
}

/**
 * What a loaded session holds, for the checks: its revision, and whether its log is exactly the
 * turns 1 to that revision, in order (no gap, no mix).
 */
export async function committedTurns<Store>(
  api: SessionApi<Store>,
  sessions: Store,
  sessionId: string,
): Promise<{ revision: number; consistent: boolean; problem?: string }> {
  const session = await api.loadSession(sessions, sessionId);
  const inputs = session.log
    .read({ fromId: 0, type: 'item' })
    .filter((episode) => episode.meta.source === 'user')
    .map((episode) => (episode.payload as { item: { content?: unknown } }).item.content);
  const expected = Array.from({ length: session.revision }, (_, index) => turnText(index + 1));
  const consistent =
    inputs.length === expected.length && inputs.every((text, index) => text === expected[index]);
  return consistent
    ? { revision: session.revision, consistent }
    : {
        revision: session.revision,
        consistent,
        problem: `revision ${session.revision} holds inputs ${JSON.stringify(inputs.slice(-3))}…`,
      };
}
