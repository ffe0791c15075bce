import { useState } from 'preact/hooks';
import type {
  SessionRelativesResponse,
  SessionRunsResponse,
  SessionTimelineResponse,
  TimelineEpisode,
  TimelineRun,
  TimelineTurn,
} from '../../../src/api/api-types.js';
import { runOfEpisode } from '../../../src/api/run-of-episode.js';
import { getJson, type Loaded, useApi } from '../api.js';
import {
  Fields,
  IdLink,
  JsonBlock,
  Loading,
  Pager,
  ShortId,
  StatusBadge,
  Time,
} from '../components/bits.js';
import { Link } from '../components/link.js';
import { href, navigate, type Route } from '../router.js';

function EpisodeRow(props: { sessionId: string; episode: TimelineEpisode; whyRun: string | null }) {
  const { episode } = props;
  const [full, setFull] = useState<unknown>(null);
  return (
    <li class={`episode episode-${episode.type}`} id={`episode-${episode.id}`}>
      <span class="episode-id">#{episode.id}</span>{' '}
      <span class={`kind kind-${episode.kind}`}>{episode.kind}</span>{' '}
      <span class="muted">{episode.source}</span>{' '}
      {episode.text.includes('\n') ? (
        <div class="episode-text multiline">{episode.text}</div>
      ) : (
        <span class="episode-text">{episode.text}</span>
      )}
      {episode.covers !== null && (
        <span class="covers">
          {' '}
          covers <a href={`#episode-${episode.covers.from_id}`}>#{episode.covers.from_id}</a>–
          <a href={`#episode-${episode.covers.to_id}`}>#{episode.covers.to_id}</a>
        </span>
      )}
      <span class="episode-actions">
        {episode.cut && full === null && (
          <button
            type="button"
            class="small"
            onClick={async () =>
              setFull(await getJson(`sessions/${props.sessionId}/episodes/${episode.id}`))
            }
          >
            Show all of #{episode.id}
          </button>
        )}
        {props.whyRun !== null && (
          <Link
            class="small-link"
            href={href(`/runs/${props.whyRun}/inputs`, { episode: episode.id })}
          >
            Why did the model (not) see #{episode.id}?
          </Link>
        )}
      </span>
      {full !== null && <JsonBlock value={full} label={`Episode ${episode.id}`} />}
    </li>
  );
}

/** A turn's `turn.usage` rows, summed into its header. */
function TurnUsage(props: { usage: NonNullable<TimelineTurn['usage']> }) {
  const { usage } = props;
  return (
    <span class="turn-usage muted">
      {' '}
      · {usage.input_tokens.toLocaleString()} in / {usage.output_tokens.toLocaleString()} out tokens
      ({usage.records} usage record{usage.records === 1 ? '' : 's'})
    </span>
  );
}

/**
 * A turn's episodes: messages, calls and boundaries in line; raw imported entries and meta
 * records behind one toggle with their count; `turn.usage` rows only in the turn's header. The
 * "why" link is offered only for episodes that could have been in a model input.
 */
function TurnEpisodes(props: {
  sessionId: string;
  episodes: readonly TimelineEpisode[];
  whyRun: string | null;
}) {
  const inline = props.episodes.filter((episode) => episode.fold === null);
  const folded = props.episodes.filter(
    (episode) => episode.fold === 'raw' || episode.fold === 'meta',
  );
  const raw = folded.filter((episode) => episode.fold === 'raw').length;
  const meta = folded.length - raw;
  const row = (episode: TimelineEpisode) => (
    <EpisodeRow
      key={episode.id}
      sessionId={props.sessionId}
      episode={episode}
      whyRun={episode.could_be_sent ? props.whyRun : null}
    />
  );
  return (
    <>
      <ul class="episodes">{inline.map(row)}</ul>
      {folded.length > 0 && (
        <details class="folded-episodes">
          <summary>
            {[
              raw > 0 ? `${raw} raw imported entr${raw === 1 ? 'y' : 'ies'}` : '',
              meta > 0 ? `${meta} meta record${meta === 1 ? '' : 's'}` : '',
            ]
              .filter((part) => part !== '')
              .join(', ')}
          </summary>
          <ul class="episodes">{folded.map(row)}</ul>
        </details>
      )}
    </>
  );
}

function FailedRun(props: { run: TimelineRun }) {
  return (
    <li class="turn failed-turn">
      <h3>
        Failed turn <ShortId id={props.run.run_id} /> <StatusBadge status={props.run.status} />
      </h3>
      <p>
        Recorded in its <Link href={`/runs/${props.run.run_id}`}>run file</Link> (started{' '}
        <Time value={props.run.started_at} />
        ), but nothing of it is in the session: the turn was discarded.
        {props.run.error !== null && (
          <>
            {' '}
            Error: <strong>{props.run.error}</strong>
          </>
        )}
      </p>
    </li>
  );
}

/** Forks and shared history: loaded after the timeline (finding them reads every snapshot once). */
function Relatives(props: { sessionId: string }) {
  const loaded = useApi<SessionRelativesResponse>(`sessions/${props.sessionId}/relatives`);
  if (loaded.state === 'ready' && loaded.data.relatives.length === 0) return null;
  return (
    <section aria-labelledby="relatives">
      <h2 id="relatives">Forks and shared history</h2>
      <Loading loaded={loaded}>
        {(data) => (
          <ul>
            {data.relatives.map((relative) => (
              <li key={relative.session_id}>
                {relative.relation === 'fork' && <>Forked into </>}
                {relative.relation === 'parent' && <>Forked from </>}
                {relative.relation === 'sibling' && <>Shares history with </>}
                <IdLink to="sessions" id={relative.session_id} /> at episode{' '}
                <a href={`#episode-${relative.shared_to_id}`}>#{relative.shared_to_id}</a>
                {relative.relation === 'fork' && (
                  <> (the fork branched after #{relative.shared_to_id})</>
                )}
              </li>
            ))}
          </ul>
        )}
      </Loading>
    </section>
  );
}

/** Where the search for the session's other runs stands, said once it changes. */
function OtherRunsStatus(props: { loaded: Loaded<SessionRunsResponse>; named: number }) {
  const { loaded } = props;
  if (loaded.state === 'error') {
    return (
      <div class="error-box" role="alert">
        <strong>Could not look for this session's other runs.</strong> {loaded.error.message}
      </div>
    );
  }
  return (
    <p class="muted" role="status">
      {loaded.state === 'loading'
        ? `The ${props.named} run${props.named === 1 ? '' : 's'} this session names. Looking for its failed turns and runs still going…`
        : loaded.data.total > loaded.data.runs.length
          ? `The newest ${loaded.data.runs.length} of ${loaded.data.total} runs of this session.`
          : `All ${loaded.data.total} run${loaded.data.total === 1 ? '' : 's'} of this session.`}
    </p>
  );
}

/**
 * The run of a turn: as the session records it, else the run matched by time among `runs` (all of
 * the session's once they are found).
 */
function runOfTurn(turn: TimelineTurn, runs: readonly TimelineRun[]): string | null {
  return turn.run_id ?? runOfEpisode(runs, turn.first_id);
}

/** Session timeline: turns and their episodes, boundaries, checkpoints and what they cover, forks, failed turns. */
export function SessionView(props: { route: Route; sessionId: string }) {
  const from = props.route.query.get('from');
  const loaded = useApi<SessionTimelineResponse>(href(`sessions/${props.sessionId}`, { from }));
  // The runs the session does not name (failed turns, runs still going) are found after the
  // timeline shows: on run files that reads every run's header.
  const all = useApi<SessionRunsResponse>(
    loaded.state === 'ready' ? `sessions/${props.sessionId}/runs` : null,
  );
  return (
    <Loading loaded={loaded}>
      {(data) => {
        const runs = all.state === 'ready' ? all.data.runs : data.runs;
        const lastInputRun =
          [...runs].reverse().find((run) => run.committed !== null || run.failed_turn)?.run_id ??
          null;
        const failed = runs.filter((run) => run.failed_turn);
        type Entry = { at: string; turn?: TimelineTurn; failed?: TimelineRun };
        const entries: Entry[] = [
          ...data.turns.map((turn) => ({ at: turn.started_at ?? '', turn })),
          ...(from === null || data.next_from === null
            ? failed.map((run) => ({ at: run.started_at, failed: run }))
            : []),
        ].sort((left, right) => (left.at < right.at ? -1 : left.at > right.at ? 1 : 0));
        return (
          <>
            <h1>
              Session <ShortId id={data.session_id} />
            </h1>
            {data.parent_session_id !== null && (
              <p class="sub-agent-of">
                Sub-agent of session <IdLink to="sessions" id={data.parent_session_id} /> (an
                imported sub-agent transcript or sidechain)
              </p>
            )}
            <Fields
              fields={[
                ['session', <code key="id">{data.session_id}</code>],
                ['revision', data.revision],
                ['updated', <Time key="t" value={data.updated_at} />],
                ['episodes', `${data.episode_count} (last #${data.last_id})`],
                [
                  'last run',
                  data.last_run_id === null ? null : (
                    <Link key="r" href={`/runs/${data.last_run_id}`}>
                      {data.last_run_id}
                    </Link>
                  ),
                ],
              ]}
            />
            <p class="actions">
              <Link href={`/sessions/${data.session_id}/trace`}>
                Tokens and latency by turn (charts)
              </Link>
            </p>
            <Relatives sessionId={data.session_id} />
            <section aria-labelledby="runs-of-session">
              <h2 id="runs-of-session">Runs</h2>
              <OtherRunsStatus loaded={all} named={data.runs.length} />
              <table class="list">
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Status</th>
                    <th scope="col">Started</th>
                    <th scope="col">In the session</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.map((run) => (
                    <tr key={run.run_id} class={run.failed_turn ? 'row-error' : undefined}>
                      <td>
                        <IdLink to="runs" id={run.run_id} />
                      </td>
                      <td>
                        <StatusBadge status={run.status} />
                      </td>
                      <td>
                        <Time value={run.started_at} />
                      </td>
                      <td>
                        {run.committed !== null
                          ? `episodes #${run.committed.first_id}–#${run.committed.last_id}`
                          : run.failed_turn
                            ? `failed turn: in its run file, not in the session${run.error ? ` (${run.error})` : ''}`
                            : 'no episodes of its own (e.g. a task episode)'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <section aria-labelledby="boundaries">
              <h2 id="boundaries">Boundaries and checkpoints</h2>
              {data.boundaries.length === 0 ? (
                <p>No boundaries.</p>
              ) : (
                <ul class="boundaries">
                  {data.boundaries.map((boundary) => (
                    <li key={boundary.id}>
                      <a
                        href={href(`/sessions/${data.session_id}`, {
                          from: Math.max(0, boundary.id - 1),
                        })}
                      >
                        #{boundary.id}
                      </a>{' '}
                      <span class={`kind kind-${boundary.kind}`}>{boundary.kind}</span>{' '}
                      {boundary.covers !== null && (
                        <strong>
                          covers #{boundary.covers.from_id}–#{boundary.covers.to_id}:{' '}
                        </strong>
                      )}
                      {boundary.text}
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section aria-labelledby="timeline">
              <h2 id="timeline">Timeline</h2>
              {data.imported_from !== null && (
                <p class="muted" role="note">
                  Imported from {data.imported_from}: the import did not record what was sent to the
                  model, so no episode can be explained against a model input. Raw entries the
                  import kept are folded under each turn.
                </p>
              )}
              <form
                hidden={data.imported_from !== null}
                class="filters"
                aria-label="Explain an episode"
                onSubmit={(event) => {
                  event.preventDefault();
                  const form = new FormData(event.currentTarget);
                  const run = String(form.get('run') ?? '');
                  if (run !== '')
                    navigate(
                      href(`/runs/${run}/inputs`, { episode: String(form.get('episode') ?? '') }),
                    );
                }}
              >
                <label>
                  Why did the model not see episode #
                  <input
                    type="number"
                    name="episode"
                    min={1}
                    max={data.last_id}
                    required
                    size={5}
                  />
                </label>
                <label>
                  in the inputs of run
                  <select name="run" defaultValue={lastInputRun ?? ''}>
                    {[...runs].reverse().map((run) => (
                      <option key={run.run_id} value={run.run_id}>
                        {run.run_id.slice(0, 8)} ({run.status}, {run.started_at})
                      </option>
                    ))}
                  </select>
                </label>
                <button type="submit">Explain</button>
              </form>
              <ol class="turns">
                {entries.map((entry) =>
                  entry.failed !== undefined ? (
                    <FailedRun key={entry.failed.run_id} run={entry.failed} />
                  ) : (
                    <li class="turn" key={`${entry.turn?.turn_id}-${entry.turn?.first_id}`}>
                      <h3>
                        {entry.turn?.turn_id === null ? (
                          'Outside a turn'
                        ) : (
                          <>
                            Turn <ShortId id={entry.turn?.turn_id ?? ''} />
                          </>
                        )}{' '}
                        · #{entry.turn?.first_id}–#{entry.turn?.last_id}
                        {entry.turn !== undefined && runOfTurn(entry.turn, runs) !== null && (
                          <>
                            {' '}
                            · run <IdLink to="runs" id={runOfTurn(entry.turn, runs) as string} /> ·{' '}
                            <Link
                              href={href(`/runs/${runOfTurn(entry.turn, runs)}/trace`, {
                                turn: entry.turn.turn_id,
                              })}
                            >
                              trace
                            </Link>
                          </>
                        )}
                        {entry.turn?.usage != null && <TurnUsage usage={entry.turn.usage} />}
                      </h3>
                      <TurnEpisodes
                        sessionId={data.session_id}
                        episodes={data.episodes.filter(
                          (episode) =>
                            episode.id >= (entry.turn?.first_id ?? 0) &&
                            episode.id <= (entry.turn?.last_id ?? 0),
                        )}
                        whyRun={data.imported_from === null ? lastInputRun : null}
                      />
                    </li>
                  ),
                )}
              </ol>
              <Pager
                label="Episodes"
                first={from === null ? null : `/sessions/${data.session_id}`}
                next={
                  data.next_from === null
                    ? null
                    : href(`/sessions/${data.session_id}`, { from: data.next_from })
                }
              />
            </section>
            <details>
              <summary>Context</summary>
              <JsonBlock value={data.context} label="Session context" />
            </details>
          </>
        );
      }}
    </Loading>
  );
}
