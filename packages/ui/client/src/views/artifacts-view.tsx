import type { ArtifactPageResponse } from '../../../src/api/api-types.js';
import { useApi, useOverview } from '../api.js';
import { JsonBlock, Loading, Pager, Time } from '../components/bits.js';
import { Link } from '../components/link.js';
import { href, navigate, type Route } from '../router.js';
import { FilterBuilder } from './filter-builder.js';

function parsedFilter(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function episodeLink(ref: string) {
  if (ref.startsWith('task:')) return <Link href={`/tasks/${ref.slice(5)}`}>{ref}</Link>;
  const session = /^session:([0-9a-f-]{36})#(\d+)$/i.exec(ref);
  if (session !== null)
    return (
      <Link href={href(`/sessions/${session[1]}`, { from: Math.max(0, Number(session[2]) - 1) })}>
        {ref}
      </Link>
    );
  return <code>{ref}</code>;
}

/** Artifacts: effective metadata, and a filter builder for seed 003's language showing which episodes matched. */
export function ArtifactsView(props: { route: Route }) {
  const query = props.route.query;
  const kind = query.get('kind') ?? '';
  const key = query.get('key');
  const filterText = query.get('filter');
  const cursor = query.get('cursor');
  const overview = useOverview();
  const loaded = useApi<ArtifactPageResponse>(
    href('artifacts', { kind, key, filter: filterText, cursor }),
  );
  const base = { kind, filter: filterText };
  return (
    <>
      <h1>Artifacts</h1>
      <form
        class="filters"
        aria-label="Artifact kind"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(
            href('/artifacts', {
              kind: String(new FormData(event.currentTarget).get('kind') ?? '').trim(),
              filter: filterText,
            }),
          );
        }}
      >
        <label>
          Kind
          <input
            type="text"
            name="kind"
            defaultValue={kind}
            placeholder="pattern, reflection, checkpoint_summary…"
            list="artifact-kinds"
          />
        </label>
        <datalist id="artifact-kinds">
          <option value="pattern" />
          <option value="reflection" />
          <option value="checkpoint_summary" />
        </datalist>
        <button type="submit">Show</button>
        <Link href="/artifacts">Clear</Link>
      </form>
      <FilterBuilder
        operators={overview.state === 'ready' ? overview.data.filter_operators : []}
        key={filterText ?? ''}
        initial={parsedFilter(filterText)}
        onApply={(filter) =>
          navigate(
            href('/artifacts', { kind, filter: filter === null ? null : JSON.stringify(filter) }),
          )
        }
      />
      {key !== null && (
        <p>
          Showing the artifact <code>{key}</code> only.{' '}
          <Link href={href('/artifacts', base)}>Show all</Link>
        </p>
      )}
      <Loading loaded={loaded}>
        {(data) => (
          <>
            {data.artifacts.length === 0 ? (
              <p>No artifacts match.</p>
            ) : (
              data.artifacts.map((artifact) => (
                <article
                  class="artifact"
                  key={artifact.key}
                  aria-label={`Artifact ${artifact.key}`}
                >
                  <h2>
                    <code>{artifact.key}</code> <span class="badge">{artifact.kind}</span>
                  </h2>
                  <p class="muted">
                    created <Time value={artifact.created_at} />, updated{' '}
                    <Time value={artifact.updated_at} />
                  </p>
                  <h3>Effective metadata</h3>
                  {Object.keys(artifact.effective_metadata).length === 0 ? (
                    <p class="muted">None: no associated episode has metadata.</p>
                  ) : (
                    <table class="list compact">
                      <tbody>
                        {Object.entries(artifact.effective_metadata).map(([name, values]) => (
                          <tr key={name}>
                            <th scope="row">{name}</th>
                            <td>{values.map((value) => JSON.stringify(value)).join(', ')}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                  <h3>Associated episodes</h3>
                  <ul class="refs">
                    {artifact.episodes.map((episode) => (
                      <li
                        key={episode.ref}
                        class={episode.matched === true ? 'matched' : undefined}
                      >
                        {episode.matched === true && (
                          <span class="badge matched-badge">matched</span>
                        )}
                        {episode.matched === false && <span class="badge">no match</span>}{' '}
                        {episodeLink(episode.ref)}{' '}
                        <span class="muted">
                          {episode.metadata === null
                            ? 'no metadata'
                            : JSON.stringify(episode.metadata)}
                        </span>
                      </li>
                    ))}
                  </ul>
                  {artifact.more_episodes > 0 && (
                    <p class="muted">and {artifact.more_episodes} more episodes</p>
                  )}
                  <details>
                    <summary>Content</summary>
                    <JsonBlock value={artifact.content} label={`Content of ${artifact.key}`} />
                  </details>
                </article>
              ))
            )}
            <Pager
              label="Artifacts"
              first={cursor === null ? null : href('/artifacts', base)}
              next={
                data.next_cursor === null
                  ? null
                  : href('/artifacts', { ...base, cursor: data.next_cursor })
              }
            />
          </>
        )}
      </Loading>
    </>
  );
}
