import type { ChainBadgeResponse } from '../../../src/api/api-types.js';
import { useApi } from '../api.js';

/**
 * The chain status of one stream (a run, a ledger session), verified when the page opens:
 * `verified`, `not chained`, or the number of errors with the first one's sentence under it.
 */
export function ChainBadge(props: { path: string }) {
  const loaded = useApi<ChainBadgeResponse>(props.path);
  if (loaded.state === 'loading') {
    return <span class="badge chain chain-checking">checking the chain…</span>;
  }
  if (loaded.state === 'error') {
    return (
      <span class="badge chain chain-findings" title={loaded.error.message}>
        could not verify
      </span>
    );
  }
  const badge = loaded.data;
  const explanation = badge.first ?? (badge.notes.length > 0 ? badge.notes.join(' ') : null);
  const tone =
    badge.status === 'findings' ? `chain-${badge.severity ?? 'error'}` : `chain-${badge.status}`;
  return (
    <span class="chain-status">
      <span class={`badge chain ${tone}`} title={explanation ?? undefined}>
        {badge.label}
      </span>
      {badge.status === 'findings' && explanation !== null && (
        <details class="chain-details">
          <summary>what changed</summary>
          <p>{explanation}</p>
        </details>
      )}
    </span>
  );
}
