import type { TaskListResponse, TaskViewResponse } from '../../../src/api/api-types.js';
import { useApi } from '../api.js';
import { Fields, IdLink, Loading, Pager, ShortId, Time } from '../components/bits.js';
import { Link } from '../components/link.js';
import { href, type Route } from '../router.js';

/** A horizontal bar (SVG, so no inline style is needed under the page's CSP), with its value as text beside it. */
function Bar(props: { value: number; max: number; label: string; tone?: string }) {
  const width = props.max <= 0 ? 0 : Math.max(0, Math.min(1, props.value / props.max)) * 200;
  return (
    <svg
      class={`bar ${props.tone ?? ''}`}
      width="200"
      height="14"
      role="img"
      aria-label={props.label}
    >
      <rect x="0" y="0" width="200" height="14" class="bar-track" />
      <rect x="0" y="0" width={width} height="14" class="bar-fill" />
    </svg>
  );
}

/** Task episode: steps as a timeline with latency bars, outcome, reward factors, reflection, patterns and provenance. */
export function TaskView(props: { taskId: string }) {
  const loaded = useApi<TaskViewResponse>(`tasks/${props.taskId}`);
  return (
    <Loading loaded={loaded}>
      {(task) => {
        const slowest = Math.max(1, ...task.steps.map((step) => step.latency_ms ?? 0));
        return (
          <>
            <h1>
              Task episode <ShortId id={task.episode_id} />
            </h1>
            <p class="lead">{task.description}</p>
            <Fields
              fields={[
                [
                  'episode',
                  <Link key="r" href={`/runs/${task.episode_id}`}>
                    {task.episode_id}
                  </Link>,
                ],
                ['scope', task.scope],
                [
                  'session',
                  task.session_id === null ? null : (
                    <Link key="s" href={`/sessions/${task.session_id}`}>
                      {task.session_id}
                    </Link>
                  ),
                ],
                [
                  'type',
                  `${task.task_type} (${String(task.context.domain ?? '?')}, ${String(task.context.complexity ?? '?')})`,
                ],
                ['started', <Time key="a" value={task.start_time} />],
                [
                  'ended',
                  task.end_time === null ? 'still running' : <Time key="b" value={task.end_time} />,
                ],
                ['duration', task.duration_seconds === null ? null : `${task.duration_seconds} s`],
                [
                  'outcome',
                  task.outcome === null ? (
                    'not completed yet'
                  ) : (
                    <span key="o">
                      <span class={`badge outcome-${task.outcome.type}`}>{task.outcome.type}</span>{' '}
                      {task.outcome.text}
                    </span>
                  ),
                ],
              ]}
            />
            {task.reward !== null && (
              <section aria-labelledby="reward">
                <h2 id="reward">
                  Reward: <span class="reward-score">{task.reward.score.toFixed(3)}</span>
                </h2>
                <p class="muted">
                  total {task.reward.total.toFixed(3)} = base × efficiency × complexity × quality +
                  learning, normalized to a reward_score in [0, 1]
                </p>
                <table class="factors">
                  <caption class="visually-hidden">Reward factors</caption>
                  <thead>
                    <tr>
                      <th scope="col">Factor</th>
                      <th scope="col">Kind</th>
                      <th scope="col" class="number">
                        Value
                      </th>
                      <th scope="col">Chart</th>
                    </tr>
                  </thead>
                  <tbody>
                    {task.reward.factors.map((factor) => (
                      <tr key={factor.name}>
                        <th scope="row">{factor.name}</th>
                        <td>{factor.role}</td>
                        <td class="number">{factor.value.toFixed(3)}</td>
                        <td>
                          <Bar
                            value={factor.value}
                            max={factor.role === 'bonus' ? 0.5 : 1.5}
                            label={`${factor.name} ${factor.value.toFixed(3)}`}
                            tone={`factor-${factor.role}`}
                          />
                        </td>
                      </tr>
                    ))}
                    <tr>
                      <th scope="row">reward_score</th>
                      <td>result</td>
                      <td class="number">{task.reward.score.toFixed(3)}</td>
                      <td>
                        <Bar
                          value={task.reward.score}
                          max={1}
                          label={`reward score ${task.reward.score.toFixed(3)}`}
                          tone="factor-result"
                        />
                      </td>
                    </tr>
                  </tbody>
                </table>
              </section>
            )}
            <section aria-labelledby="steps">
              <h2 id="steps">Steps ({task.steps.length})</h2>
              <table class="list steps">
                <thead>
                  <tr>
                    <th scope="col" class="number">
                      Step
                    </th>
                    <th scope="col">Time</th>
                    <th scope="col">Tool</th>
                    <th scope="col">Action</th>
                    <th scope="col">Result</th>
                    <th scope="col">Latency</th>
                  </tr>
                </thead>
                <tbody>
                  {task.steps.map((step) => (
                    <tr
                      key={step.step_number}
                      class={
                        step.result_type === 'error' || step.result_type === 'timeout'
                          ? 'row-error'
                          : undefined
                      }
                    >
                      <td class="number">{step.step_number}</td>
                      <td>
                        <Time value={step.timestamp} />
                      </td>
                      <td>
                        <code>{step.tool}</code>
                      </td>
                      <td class="wrap">
                        {step.action}
                        {step.detail !== null && <div class="muted">{step.detail}</div>}
                      </td>
                      <td>
                        <span class={`badge result-${step.result_type}`}>{step.result_type}</span>
                      </td>
                      <td class="latency">
                        {step.latency_ms === null ? (
                          <span class="muted">—</span>
                        ) : (
                          <>
                            <Bar
                              value={step.latency_ms}
                              max={slowest}
                              label={`${step.latency_ms} ms`}
                              tone="latency"
                            />{' '}
                            {step.latency_ms} ms
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            {task.reflection !== null && (
              <section aria-labelledby="reflection">
                <h2 id="reflection">Reflection</h2>
                {(
                  [
                    ['Successes', task.reflection.successes],
                    ['Improvements', task.reflection.improvements],
                    ['Insights', task.reflection.insights],
                  ] as const
                ).map(([title, items]) =>
                  items.length === 0 ? null : (
                    <div key={title}>
                      <h3>{title}</h3>
                      <ul>
                        {items.map((item) => (
                          <li key={item}>{item}</li>
                        ))}
                      </ul>
                    </div>
                  ),
                )}
              </section>
            )}
            <section aria-labelledby="patterns">
              <h2 id="patterns">Patterns learned ({task.patterns.length})</h2>
              {task.patterns.length === 0 ? (
                <p>No patterns.</p>
              ) : (
                <table class="list">
                  <thead>
                    <tr>
                      <th scope="col">Type</th>
                      <th scope="col">Pattern</th>
                      <th scope="col">Learned from (provenance)</th>
                    </tr>
                  </thead>
                  <tbody>
                    {task.patterns.map((pattern) => (
                      <tr key={pattern.key}>
                        <td>{pattern.type ?? '?'}</td>
                        <td class="wrap">{pattern.description}</td>
                        <td>
                          <ul class="refs">
                            {pattern.episodes.map((ref) => {
                              const taskId = ref.startsWith('task:') ? ref.slice(5) : null;
                              return (
                                <li key={ref}>
                                  {taskId === null ? (
                                    <code>{ref}</code>
                                  ) : (
                                    <Link href={`/tasks/${taskId}`}>{ref}</Link>
                                  )}
                                </li>
                              );
                            })}
                          </ul>
                          <Link
                            class="small-link"
                            href={href('/artifacts', { kind: 'pattern', key: pattern.key })}
                          >
                            artifact and metadata
                          </Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          </>
        );
      }}
    </Loading>
  );
}

/** Task episodes: completed tasks with their outcome and reward (from their reflections). */
export function TasksListView(props: { route: Route }) {
  const cursor = props.route.query.get('cursor');
  const loaded = useApi<TaskListResponse>(href('tasks', { cursor }));
  return (
    <>
      <h1>Task episodes</h1>
      <p class="muted">Completed task episodes (a task still running is in the runs list).</p>
      <Loading loaded={loaded}>
        {(data) => (
          <>
            {data.tasks.length === 0 ? (
              <p>No completed task episodes.</p>
            ) : (
              <table class="list">
                <thead>
                  <tr>
                    <th scope="col">Task episode</th>
                    <th scope="col">Outcome</th>
                    <th scope="col" class="number">
                      Reward
                    </th>
                    <th scope="col">Completed</th>
                  </tr>
                </thead>
                <tbody>
                  {data.tasks.map((task) => (
                    <tr key={task.episode_id}>
                      <td>
                        <IdLink to="tasks" id={task.episode_id} />
                      </td>
                      <td>
                        <span class={`badge outcome-${task.outcome}`}>{task.outcome}</span>
                      </td>
                      <td class="number">
                        {task.reward_score === null ? '—' : task.reward_score.toFixed(3)}
                      </td>
                      <td>
                        <Time value={task.updated_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <Pager
              label="Task episodes"
              first={cursor === null ? null : '/tasks'}
              next={data.next_cursor === null ? null : href('/tasks', { cursor: data.next_cursor })}
            />
          </>
        )}
      </Loading>
    </>
  );
}
