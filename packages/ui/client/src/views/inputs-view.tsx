import type { ModelInput, ModelInputsResponse } from '../../../src/api/api-types.js';
import { useApi } from '../api.js';
import { Loading, ShortId, Time } from '../components/bits.js';
import { Link } from '../components/link.js';
import { href, navigate, type Route } from '../router.js';

const NOTE_LABELS: Record<string, string> = {
  'synthesized-output': 'healed call',
  'truncated-output': 'truncated output',
  'dangling-call-kept': 'unanswered call sent as is',
};

function InputCard(props: { input: ModelInput; runId: string }) {
  const { input } = props;
  const { manifest } = input;
  return (
    <article class="input-card" aria-labelledby={`input-${input.index}`}>
      <h2 id={`input-${input.index}`}>
        Model input #{input.seq ?? '?'}
        {input.round !== null && <span class="muted"> · round {input.round}</span>}
      </h2>
      <p class="muted">
        <Time value={input.ts} /> · {input.model ?? 'model not named'} · {input.messages.length}{' '}
        messages
        {input.usage !== null &&
          ` · answered with ${input.usage.input_tokens.toLocaleString()} input / ${input.usage.output_tokens.toLocaleString()} output tokens`}{' '}
        · <a href={`/runs/${props.runId}#record-${input.index}`}>record #{input.index}</a>
      </p>
      {input.explanation !== null && (
        <p class="explanation" role="note">
          {input.explanation}
        </p>
      )}
      {manifest.form === 'none' ? (
        <p class="muted">No assembly manifest was recorded with this input.</p>
      ) : (
        <dl class="fields">
          <div>
            <dt>started at</dt>
            <dd>
              {manifest.start_id === null ? 'no history' : `episode #${manifest.start_id}`}
              {manifest.start_description !== null && ` — ${manifest.start_description}`}
            </dd>
          </div>
          <div>
            <dt>sent</dt>
            <dd>
              {manifest.item_count ?? '?'} items, about{' '}
              {manifest.estimated_tokens?.toLocaleString() ?? '?'} tokens
            </dd>
          </div>
          <div>
            <dt>budget</dt>
            <dd>
              {manifest.budget === null ? (
                'none'
              ) : (
                <span class={manifest.budget.exceeded ? 'over-budget' : undefined}>
                  limit {manifest.budget.limit.toLocaleString()} tokens; last input{' '}
                  {manifest.budget.last_input_tokens?.toLocaleString() ?? '?'}
                  {manifest.budget.exceeded
                    ? ' — over budget: history was cut'
                    : ' — within budget'}
                </span>
              )}
            </dd>
          </div>
          <div>
            <dt>not sent</dt>
            <dd>
              {manifest.dropped.length === 0 ? (
                'nothing'
              ) : (
                <ul>
                  {manifest.dropped.map((drop) => (
                    <li key={drop.reason}>
                      <strong>{drop.count}</strong> × {drop.reason}
                      {drop.episode_ids.length > 0 && `: #${drop.episode_ids.join(', #')}`}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </div>
          <div>
            <dt>changed on the way</dt>
            <dd>
              {manifest.notes.length === 0 ? (
                'nothing'
              ) : (
                <ul>
                  {manifest.notes.map((note) => (
                    <li key={`${note.episode_id}-${note.kind}`}>
                      <span class={`badge note-${note.kind}`}>
                        {NOTE_LABELS[note.kind] ?? note.kind}
                      </span>{' '}
                      {note.episode_id !== null && `episode #${note.episode_id}: `}
                      {note.detail}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
          </div>
        </dl>
      )}
      <details>
        <summary>The {input.messages.length} messages sent</summary>
        <ol class="messages">
          {input.messages.map((message, index) => (
            <li key={index}>
              <span class={`kind role-${message.role}`}>{message.role}</span>
              {message.tool_call_id !== null && <code> ({message.tool_call_id})</code>}{' '}
              {message.text}
              {message.tool_calls.length > 0 && <span> calls {message.tool_calls.join(', ')}</span>}
              {message.cut && (
                <span class="muted"> ({message.chars.toLocaleString()} characters)</span>
              )}
            </li>
          ))}
        </ol>
      </details>
    </article>
  );
}

/** "Why did the model not see X?": each model input of a run with its assembly manifest. */
export function InputsView(props: { route: Route; runId: string }) {
  const episode = props.route.query.get('episode');
  const loaded = useApi<ModelInputsResponse>(href(`runs/${props.runId}/inputs`, { episode }));
  return (
    <>
      <h1>
        Model inputs of run <ShortId id={props.runId} />
      </h1>
      <p>
        <Link href={`/runs/${props.runId}`}>← the run's records</Link>
      </p>
      <form
        class="filters"
        aria-label="Explain an episode"
        onSubmit={(event) => {
          event.preventDefault();
          const value = String(new FormData(event.currentTarget).get('episode') ?? '').trim();
          navigate(href(`/runs/${props.runId}/inputs`, { episode: value }));
        }}
      >
        <label>
          Why did the model not see episode #
          <input type="number" name="episode" min={1} defaultValue={episode ?? ''} size={6} />
        </label>
        <button type="submit">Explain</button>
      </form>
      <Loading loaded={loaded}>
        {(data) => (
          <>
            {data.session_id !== null && (
              <p class="muted">
                Episodes are those of session{' '}
                <Link href={`/sessions/${data.session_id}`}>{data.session_id}</Link>.
              </p>
            )}
            {data.inputs.length === 0 ? (
              <p>
                {data.imported_from !== null
                  ? `This run was imported from ${data.imported_from}. The import did not record what was sent to the model${data.model_responses > 0 ? ` (it holds ${data.model_responses} model response${data.model_responses === 1 ? '' : 's'})` : ''}, so there is no model input to show or explain.`
                  : data.model_responses > 0
                    ? `This run recorded ${data.model_responses} model response${data.model_responses === 1 ? '' : 's'} but no model input (no llm.request record): what was sent is unknown.`
                    : 'This run made no model call.'}
              </p>
            ) : (
              data.inputs.map((input) => (
                <InputCard key={input.index} input={input} runId={data.run_id} />
              ))
            )}
          </>
        )}
      </Loading>
    </>
  );
}
