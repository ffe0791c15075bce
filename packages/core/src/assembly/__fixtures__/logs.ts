import { createEpisodic, type Episodic } from '../../episodic/index.js';
import type { InputItem } from '../../schema/index.js';

export const fixedClock = () => new Date('2026-02-03T12:00:00.000Z');

export const say = (role: 'user' | 'assistant', content: string): InputItem => ({
  type: 'message',
  role,
  content,
});
export const call = (callId: string, name = 'read_file'): InputItem => ({
  type: 'function_call',
  call_id: callId,
  name,
  arguments: '{}',
});
export const output = (callId: string, text = 'ok'): InputItem => ({
  type: 'function_call_output',
  call_id: callId,
  output: text,
});

/** A log builder that keeps the test bodies short. */
export function logBuilder(log: Episodic = createEpisodic(undefined, { now: fixedClock })) {
  const builder = {
    log,
    user(content: string, turnId?: string) {
      return log.append({
        type: 'item',
        meta: { source: 'user', ...(turnId ? { turnId } : {}) },
        payload: { item: say('user', content) },
      }).id;
    },
    model(items: InputItem[], turnId?: string) {
      return log
        .appendItems(items, { source: 'model', ...(turnId ? { turnId } : {}) })
        .map((episode) => episode.id);
    },
    tool(callId: string, text: string, turnId?: string) {
      return log.append({
        type: 'item',
        meta: { source: 'tool', ...(turnId ? { turnId } : {}) },
        payload: { item: output(callId, text) },
      }).id;
    },
    boundary(
      reason: 'checkpoint' | 'interrupt' | 'overflow' | 'segment' | 'intent',
      title: string,
      content?: string,
      turnId?: string,
    ) {
      return log.append({
        type: 'boundary',
        meta: { source: 'runtime', ...(turnId ? { turnId } : {}) },
        payload:
          reason === 'checkpoint'
            ? { reason, title, content: content ?? title }
            : reason === 'intent'
              ? { reason, title }
              : { reason, title, ...(content === undefined ? {} : { content }) },
      }).id;
    },
    usage(inputTokens: number, turnId?: string) {
      return log.append({
        type: 'meta',
        meta: { source: 'runtime', ...(turnId ? { turnId } : {}) },
        payload: { event: 'turn.usage', data: { inputTokens, outputTokens: 10 } },
      }).id;
    },
  };
  return builder;
}
