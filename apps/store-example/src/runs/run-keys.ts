/** Each run is one value: its JSONL text (seed 001 run file), under `runs/<run id>`. */
export const RUN_PREFIX = 'runs/';

export const runKey = (runId: string): string => `${RUN_PREFIX}${runId}`;
