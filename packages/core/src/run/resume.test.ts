import { describe, expect, it } from 'vitest';
import type { SessionState } from '../schema/session-state.js';
import { describeEnvironmentChanges, diffRuntime, planResume } from './resume.js';

const snapshot: SessionState = {
  schema_version: 1,
  session_id: 'f6d2c6d5-4a12-4cc4-bbc9-9a0c0d2b5af1',
  updated_at: '2026-02-03T12:00:02.900Z',
  run_id: '8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a',
  invoke_seq: 1,
  messages: [
    { role: 'system', content: 'You are a coding assistant.' },
    { role: 'user', content: 'list files' },
  ],
  meta: { runtime: { cwd: '/home/a/project', os: 'linux', arch: 'x64' }, other: true },
};
const now = () => new Date('2026-02-04T09:00:00.000Z');

describe('planResume', () => {
  it('describes a changed environment in a system message and updates the snapshot', () => {
    const plan = planResume(snapshot, {
      runtime: { cwd: '/srv/b', os: 'linux', arch: 'arm64' },
      now,
    });
    expect(plan.changes).toEqual([
      { field: 'cwd', from: '/home/a/project', to: '/srv/b' },
      { field: 'arch', from: 'x64', to: 'arm64' },
    ]);
    expect(plan.systemMessage).toEqual({
      role: 'system',
      content: describeEnvironmentChanges(plan.changes),
      message_ts: '2026-02-04T09:00:00.000Z',
    });
    expect(plan.systemMessage?.content).toContain(
      'working directory: was /home/a/project, now /srv/b',
    );
    expect(plan.systemMessage?.content).toContain('CPU architecture: was x64, now arm64');
    expect(plan.messages).toEqual([...snapshot.messages, plan.systemMessage]);
    expect(plan.state.messages).toEqual(plan.messages);
    expect(plan.state.meta).toEqual({
      runtime: { cwd: '/srv/b', os: 'linux', arch: 'arm64' },
      other: true,
    });
    expect(plan).toMatchObject({
      sessionId: snapshot.session_id,
      fromRunId: snapshot.run_id,
      invokeSeq: 1,
    });
    // The snapshot itself is not changed.
    expect(snapshot.messages).toHaveLength(2);
  });

  it('injects nothing when nothing changed or the previous environment is unknown', () => {
    expect(
      planResume(snapshot, { runtime: { cwd: '/home/a/project', os: 'linux', arch: 'x64' } })
        .systemMessage,
    ).toBeNull();
    const { meta: _meta, ...unknown } = snapshot;
    const plan = planResume(unknown, { runtime: { cwd: '/x' } });
    expect(plan.changes).toEqual([]);
    expect(plan.systemMessage).toBeNull();
    expect(plan.messages).toEqual(snapshot.messages);
  });

  it('uses an explicit previous runtime, and reports a field that is no longer known', () => {
    const plan = planResume(snapshot, {
      runtime: { os: 'linux' },
      previousRuntime: { cwd: '/old', os: 'linux' },
    });
    expect(plan.changes).toEqual([{ field: 'cwd', from: '/old' }]);
    expect(plan.systemMessage?.content).toContain('working directory: was /old, now unknown');
  });

  it('compares extra string fields too, ignoring ones only the new runtime has', () => {
    expect(
      diffRuntime(
        { cwd: '/a', project_root: '/a' },
        { cwd: '/a', project_root: '/b', shell: 'zsh' },
      ),
    ).toEqual([{ field: 'project_root', from: '/a', to: '/b' }]);
  });

  it('rejects a bad snapshot or options with VALIDATION_ERROR', () => {
    expect(() => planResume({ ...snapshot, messages: 'x' } as never, { runtime: {} })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
    expect(() => planResume(snapshot, { runtime: { cwd: 5 } } as never)).toThrow(/runtime\.cwd/);
  });
});
