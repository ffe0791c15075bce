import { useEffect, useState } from 'preact/hooks';
import type {
  LiveBatch,
  RunRecordItem,
  RunViewResponse,
  ToolOutputResponse,
} from '../../../src/api/api-types.js';
import { getJson, useApi } from '../api.js';
import {
  Fields,
  JsonBlock,
  Loading,
  Pager,
  Scrollable,
  ShortId,
  StatusBadge,
  Time,
} from '../components/bits.js';
import { ChainBadge } from '../components/chain-badge.js';
import { Link } from '../components/link.js';
import { href, type Route } from '../router.js';

function FullOutput(props: { runId: string; callId: string }) {
  const [output, setOutput] = useState<ToolOutputResponse | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  if (output !== null) {
    return (
      <div class="full-output">
        <p class="muted">
          Full output, {output.text.length.toLocaleString()} characters, from the{' '}
          {output.source === 'cache' ? 'tool-output cache' : 'run record'}:
        </p>
        <Scrollable label="Full tool output">{output.text}</Scrollable>
      </div>
    );
  }
  return (
    <>
      <button
        type="button"
        class="small"
        onClick={() =>
          getJson<ToolOutputResponse>(
            `runs/${props.runId}/tool-outputs/${encodeURIComponent(props.callId)}`,
          ).then(setOutput, (error: Error) => setFailed(error.message))
        }
      >
        Show the full output
      </button>
      {failed !== null && <span role="alert"> {failed}</span>}
    </>
  );
}

function RecordRow(props: { runId: string; record: RunRecordItem; target: boolean }) {
  const { record } = props;
  const [raw, setRaw] = useState<unknown>(null);
  return (
    <li
      class={`record record-${record.type.replace(/\./g, '-')}${record.error ? ' record-error' : ''}${props.target ? ' record-at' : ''}`}
      id={`record-${record.index}`}
      aria-current={props.target ? 'true' : undefined}
    >
      <div class="record-line">
        <span class="record-index">{record.index}</span> <span class="kind">{record.type}</span>{' '}
        {record.error && <span class="badge status-failed">error</span>}{' '}
        <span class="record-summary">{record.summary}</span>{' '}
        {record.call !== null && (
          <span class="pairing">
            {record.type === 'tool.output' ? 'output of ' : 'call '}
            <code>{record.call.id}</code>
            {record.call.partner_index === null ? (
              <strong class="unpaired">
                {' '}
                (no {record.type === 'tool.output' ? 'call' : 'output'} in this run)
              </strong>
            ) : (
              <>
                {' '}
                →{' '}
                <a href={`#record-${record.call.partner_index}`}>
                  {record.type === 'tool.output' ? 'the call' : 'its output'} (#
                  {record.call.partner_index})
                </a>
              </>
            )}
          </span>
        )}
        <span class="muted record-time">
          <Time value={record.ts} />
        </span>
        {raw === null && (
          <button
            type="button"
            class="small"
            onClick={async () =>
              setRaw(
                (await getJson<{ record: unknown }>(`runs/${props.runId}/records/${record.index}`))
                  .record,
              )
            }
          >
            JSON
          </button>
        )}
      </div>
      {record.output !== null && (
        <div class="output">
          {record.output.collapsed ? (
            <>
              <p class="muted">
                Long output: {record.output.chars.toLocaleString()} characters, collapsed to its
                start and end.
              </p>
              <Scrollable label="Start of the output">{record.output.head}</Scrollable>
              <p class="muted" aria-hidden="true">
                …
              </p>
              <Scrollable label="End of the output">{record.output.tail}</Scrollable>
              {record.call !== null && <FullOutput runId={props.runId} callId={record.call.id} />}
            </>
          ) : (
            <Scrollable label="Tool output">{record.output.head}</Scrollable>
          )}
        </div>
      )}
      {raw !== null && <JsonBlock value={raw} label={`Record ${record.index}`} />}
    </li>
  );
}

/** Follows a running run over server-sent events; returns the records that arrived since the page loaded. */
function useLiveRecords(
  runId: string,
  from: number | null,
): { records: RunRecordItem[]; state: 'off' | 'live' | 'ended' } {
  const [records, setRecords] = useState<RunRecordItem[]>([]);
  const [state, setState] = useState<'off' | 'live' | 'ended'>('off');
  useEffect(() => {
    setRecords([]);
    if (from === null) {
      setState('off');
      return undefined;
    }
    const source = new EventSource(`/api/runs/${runId}/live?position=${from}`);
    setState('live');
    source.addEventListener('records', (event) => {
      const batch = JSON.parse((event as MessageEvent<string>).data) as LiveBatch;
      setRecords((known) => [...known, ...batch.records]);
    });
    source.addEventListener('end', () => {
      setState('ended');
      source.close();
    });
    return () => source.close();
  }, [runId, from]);
  return { records, state };
}

/** Run view: every record in order, tool calls paired with outputs, long outputs collapsed, errors marked; live while running. */
export function RunView(props: { route: Route; runId: string }) {
  const from = props.route.query.get('from');
  // `at`: a run position (a search hit's): the page holding that record, marked and scrolled to.
  const at = props.route.query.get('at');
  const loaded = useApi<RunViewResponse>(href(`runs/${props.runId}`, { from, at }));
  const data = loaded.state === 'ready' ? loaded.data : null;
  const atIndex = data?.at_index ?? null;
  useEffect(() => {
    if (atIndex === null) return;
    document.getElementById(`record-${atIndex}`)?.scrollIntoView({ block: 'center' });
  }, [atIndex]);
  // Live only on the last page of a run that has not ended.
  const follow = data !== null && !data.ended && data.next_from === null ? data.position : null;
  const live = useLiveRecords(props.runId, follow);
  return (
    <Loading loaded={loaded}>
      {(run) => {
        const model = run.header?.model as { provider?: string; name?: string } | undefined;
        return (
          <>
            <h1>
              Run <ShortId id={run.run_id} />{' '}
              <StatusBadge status={live.state === 'ended' ? 'ended' : run.status} />
            </h1>
            <Fields
              fields={[
                ['run', <code key="id">{run.run_id}</code>],
                [
                  'session',
                  run.session_id === null ? null : (
                    <Link key="s" href={`/sessions/${run.session_id}`}>
                      {run.session_id}
                    </Link>
                  ),
                ],
                [
                  'started',
                  <Time key="t" value={(run.header?.started_at as string | undefined) ?? null} />,
                ],
                [
                  'model',
                  model === undefined ? null : `${model.provider ?? '?'}/${model.name ?? '?'}`,
                ],
                ['records', run.record_count],
                [
                  'ended',
                  run.ended ? 'yes' : 'not yet: running, or its writer stopped before run.end',
                ],
                ['read', run.best_effort === null ? 'fully' : `best effort: ${run.best_effort}`],
                ['chain', <ChainBadge key="chain" path={`runs/${run.run_id}/verify`} />],
              ]}
            />
            <p class="actions">
              <Link href={`/runs/${run.run_id}/trace`}>
                Trace: model and tool calls, their timing, tokens and errors
              </Link>
              {run.model_inputs > 0 && (
                <Link href={`/runs/${run.run_id}/inputs`}>
                  Model inputs ({run.model_inputs}): what was sent, what was left out and why
                </Link>
              )}
              {run.task && (
                <Link href={`/tasks/${run.run_id}`}>Task episode: steps, outcome, reward</Link>
              )}
            </p>
            {live.state !== 'off' && (
              <p class={`live live-${live.state}`} role="status" aria-live="polite">
                {live.state === 'live'
                  ? `Live: new records appear here as the run writes them (${live.records.length} so far).`
                  : `The run ended (${live.records.length} new record${live.records.length === 1 ? '' : 's'} while watching).`}
              </p>
            )}
            {run.errors.length > 0 && (
              <section aria-labelledby="damage" class="error-box">
                <h2 id="damage">Damaged lines ({run.errors.length})</h2>
                <ul>
                  {run.errors.map((error) => (
                    <li key={`${error.line}-${error.excerpt}`}>
                      line {error.line ?? '?'}: {error.message} <code>{error.excerpt}</code>
                    </li>
                  ))}
                </ul>
              </section>
            )}
            {run.tool_calls.length > 0 && (
              <section aria-labelledby="tool-calls">
                <h2 id="tool-calls">Tool calls ({run.tool_calls.length})</h2>
                <table class="list">
                  <thead>
                    <tr>
                      <th scope="col">Tool</th>
                      <th scope="col">Arguments</th>
                      <th scope="col">Call</th>
                      <th scope="col">Output</th>
                      <th scope="col" class="number">
                        Chars
                      </th>
                      <th scope="col" class="number">
                        Time
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {run.tool_calls.map((call) => (
                      <tr
                        key={call.call_id}
                        class={
                          call.is_error || call.output_index === null ? 'row-error' : undefined
                        }
                      >
                        <td>
                          <code>{call.tool}</code>
                        </td>
                        <td class="wrap">{call.arguments ?? ''}</td>
                        <td>
                          {call.call_index === null ? (
                            'no call recorded'
                          ) : (
                            <a href={`#record-${call.call_index}`}>#{call.call_index}</a>
                          )}
                        </td>
                        <td>
                          {call.output_index === null ? (
                            <strong>no output (interrupted or unanswered)</strong>
                          ) : (
                            <a href={`#record-${call.output_index}`}>
                              #{call.output_index}
                              {call.is_error ? ' (error)' : ''}
                            </a>
                          )}
                        </td>
                        <td class="number">{call.output_chars?.toLocaleString() ?? '—'}</td>
                        <td class="number">
                          {call.duration_ms === null ? '—' : `${call.duration_ms} ms`}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </section>
            )}
            <section aria-labelledby="records">
              <h2 id="records">Records</h2>
              {at !== null && run.at_index === null && (
                <p class="notice" role="status">
                  Position {at} of this run is not a readable record (a damaged line, or past its
                  end).
                </p>
              )}
              <ol class="records">
                {[...run.records, ...live.records].map((record) => (
                  <RecordRow
                    key={record.index}
                    runId={run.run_id}
                    record={record}
                    target={record.index === run.at_index}
                  />
                ))}
              </ol>
              <Pager
                label="Records"
                first={run.from === 0 ? null : `/runs/${run.run_id}`}
                next={
                  run.next_from === null
                    ? null
                    : href(`/runs/${run.run_id}`, { from: run.next_from })
                }
              />
            </section>
          </>
        );
      }}
    </Loading>
  );
}
