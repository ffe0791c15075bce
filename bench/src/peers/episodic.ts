import {
  commitEpisodes,
  createSession,
  type InputItem,
  loadSession,
  type Session,
} from '@episodic/core';
import { implementationKey } from '../data/implementation.js';
import {
  instantModel,
  openSessionStore,
  SESSION_DURABILITY,
  type SessionBackend,
  turnEpisodes,
} from '../data/sessions.js';
import { TurnSplit } from '../lib/turn-split.js';
import {
  THREAD_ID,
  type ThreadSystem,
  type ThreadSystemKind,
  TURN_ANSWER,
  TURN_USER,
  threadMessage,
} from './thread.js';

/** A turn's two messages as episodes, as a framework adapter commits them. */
const SAVED_TURN = turnEpisodes(TURN_USER, TURN_ANSWER);

/**
 * Episodic as a thread system: a session in the fs or SQLite store (the fs store also unsynced,
 * durability `'none'`, to store turns at a peer's durability; it reads the synced fs threads). A turn is
 * `session.runTurn(user text, model)` with a model that answers at once (the turn's input, the
 * model input assembled from the whole thread, the answer, one commit); a saved turn is
 * `commitEpisodes(session, [user, assistant])` (one commit, no model input); a load is
 * `loadSession`.
 */
export function episodicThreads(variant: keyof typeof SESSION_DURABILITY): ThreadSystemKind {
  const unsynced = variant === 'fs-unsynced';
  const backend: SessionBackend = unsynced ? 'fs' : variant;
  return {
    id: `episodic-${variant}`,
    datasetId: unsynced ? 'episodic-fs' : undefined,
    label: unsynced
      ? "Episodic (fs store, durability 'none')"
      : `Episodic (${backend === 'fs' ? 'fs' : 'SQLite'} store)`,
    cacheKey: () => implementationKey(),
    async build(directory, messages) {
      const opened = openSessionStore(backend, directory);
      try {
        const session = createSession({ store: opened.sessions, id: THREAD_ID });
        // One turn whose input is the thread's first messages; the model answers with the last.
        const input: InputItem[] = [];
        for (let index = 0; index < messages - 1; index++) {
          const { role, text } = threadMessage(index);
          input.push({ type: 'message', role, content: text });
        }
        await session.runTurn(input, instantModel(threadMessage(messages - 1).text));
        if (session.log.size !== messages) throw new Error(`built ${session.log.size} episodes`);
      } finally {
        await opened.close();
      }
    },
    async open(directory): Promise<ThreadSystem> {
      const opened = openSessionStore(backend, directory, unsynced ? 'none' : 'run');
      const session: Session = await loadSession(opened.sessions, THREAD_ID);
      const split = new TurnSplit(TURN_ANSWER);
      return {
        async appendTurn() {
          await split.turn(session, TURN_USER);
        },
        async saveTurn() {
          await commitEpisodes(session, SAVED_TURN);
        },
        async load() {
          const loaded = await loadSession(opened.sessions, THREAD_ID);
          return loaded.log.size;
        },
        notes() {
          const note = split.note(`Episodic (${variant})`);
          split.reset();
          return note === null ? [] : [note];
        },
        close: () => opened.close(),
      };
    },
    async durability() {
      return SESSION_DURABILITY[variant];
    },
  };
}
