import { UsageError } from '../usage-error.js';
import type { DemoModel } from './demo-model.js';
import { createOpenAiModel } from './openai-model.js';
import { createScriptedModel } from './scripted-model.js';

/** The model used when `--model` is not given. */
export const DEFAULT_MODEL = 'built-in';
/** The endpoint used when `OPENAI_BASE_URL` is not set. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The model named by `--model`: `built-in` (offline, deterministic) or `openai:<name>`, which
 * reads `OPENAI_API_KEY` (required) and `OPENAI_BASE_URL` from the environment. Missing or bad
 * configuration is a `UsageError` saying what to set.
 */
export function selectModel(
  spec: string,
  env: Readonly<Record<string, string | undefined>>,
): DemoModel {
  if (spec === DEFAULT_MODEL) return createScriptedModel();
  if (!spec.startsWith('openai:')) {
    throw new UsageError(
      `Unknown --model "${spec}": use "built-in" (the default, offline) or "openai:<model name>", e.g. --model openai:gpt-4o-mini.`,
    );
  }
  const name = spec.slice('openai:'.length).trim();
  if (name === '') {
    throw new UsageError(
      '--model openai: needs a model name after the colon, e.g. --model openai:gpt-4o-mini.',
    );
  }
  const apiKey = env.OPENAI_API_KEY?.trim() ?? '';
  if (apiKey === '') {
    throw new UsageError(
      `--model ${spec} needs OPENAI_API_KEY (and OPENAI_BASE_URL for an endpoint other than ${DEFAULT_OPENAI_BASE_URL}). ` +
        'Set them, e.g. OPENAI_API_KEY=sk-… pnpm demo --model openai:gpt-4o-mini, or OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=local pnpm demo --model openai:llama3.1 for a local server. Without --model the demo runs offline.',
    );
  }
  const baseUrl = env.OPENAI_BASE_URL?.trim() || DEFAULT_OPENAI_BASE_URL;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new UsageError(
      `OPENAI_BASE_URL "${baseUrl}" is not a URL: use e.g. ${DEFAULT_OPENAI_BASE_URL}.`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`OPENAI_BASE_URL "${baseUrl}" must start with http:// or https://.`);
  }
  return createOpenAiModel({ model: name, baseUrl, apiKey });
}
