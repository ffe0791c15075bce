import { createEpisodic } from '@episodic/core';

/**
 * The demo agent grows with the packages (see the demo issue). Today it records a short scripted
 * exchange in an episodic log, restores it from JSONL and checks the round trip.
 */
const log = createEpisodic();
const turnId = 'turn-1';
log.appendItems([{ type: 'message', role: 'user', content: 'What is 6 × 7?' }], {
  source: 'user',
  turnId,
});
log.appendItems(
  [
    {
      type: 'function_call',
      call_id: 'call_1',
      name: 'calculator',
      arguments: '{"expression":"6*7"}',
    },
  ],
  {
    source: 'model',
    turnId,
  },
);
log.appendItems([{ type: 'function_call_output', call_id: 'call_1', output: '42' }], {
  source: 'tool',
  turnId,
});
log.appendItems([{ type: 'message', role: 'assistant', content: '6 × 7 = 42.' }], {
  source: 'model',
  turnId,
});

const restored = createEpisodic(log.toJSONL());
const same = restored.toJSONL() === log.toJSONL();
const json = process.argv.includes('--json');
if (json) {
  process.stdout.write(
    `${JSON.stringify({ episodes: restored.read({ fromId: 0 }), roundTrip: same })}\n`,
  );
} else {
  console.log('Episodic demo: a scripted turn, recorded and restored\n');
  for (const episode of restored.read({ fromId: 0 })) {
    const item = episode.type === 'item' ? episode.payload.item : null;
    console.log(
      `  #${episode.id} ${episode.meta.source.padEnd(6)} ${item ? item.type : episode.type}`,
    );
  }
  console.log(`\nJSONL round trip: ${same ? 'ok' : 'MISMATCH'}`);
}
if (!same) {
  console.error('demo check failed: the restored log differs from the original');
  process.exitCode = 1;
}
