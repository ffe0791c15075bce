import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDemo, temporaryHome } from './run-built-demo.js';

// Chat mode, driven through stdin of the built binary like a person typing (without a TTY, the
// input lines are echoed so the transcript reads in order).

describe('pnpm demo chat', () => {
  it('runs turns, interrupts, forks and shows the timeline from stdin', async () => {
    const home = temporaryHome();
    const input = [
      'Scan the workspace for secrets.',
      '/interrupt',
      'What files are in the workspace?',
      '/timeline',
      '/fork',
      'What is 2 + 3 * 4?',
      '/timeline',
      '/help',
      '/quit',
      'never read: the chat has quit',
    ].join('\n');
    const result = await runDemo(['chat', '--home', home], { input: `${input}\n` });
    expect(result.status, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`Home: ${home} (recreated fresh)`);
    expect(out).toContain('#1  Scan the workspace for secrets.');
    expect(out).toContain('interrupted: The user typed /interrupt.');
    expect(out).toMatch(/interrupt boundary #1 committed/);
    expect(out).toContain(
      '← The workspace has 5 files: invoice.csv, logs/server.log, notes.md, README.md, src/orders.ts.',
    );
    expect(out).toMatch(/Timeline of session [0-9a-f-]{36} \(\d+ episodes, revision 2\)/);
    expect(out).toMatch(/runtime interrupt\s+"The user typed \/interrupt\."/);
    expect(out).toMatch(/Forked session [0-9a-f-]{36} into [0-9a-f-]{36}/);
    expect(out).toContain('← 2 + 3 * 4 = 14.');
    expect(out).toContain('/interrupt  stop the running turn');
    expect(out).not.toContain('never read');
    expect(out).toMatch(/Task episode [0-9a-f-]{36} completed: reward_score 0\.\d{3}/);
    expect(out).toMatch(/Ledger scope "episodic-demo": \d+ events indexed from 2 session\(s\)/);

    // Both sessions were saved: the original and the fork.
    const snapshots = readdirSync(join(home, 'sessions', 'state')).filter((name) =>
      name.endsWith('.json'),
    );
    expect(snapshots).toHaveLength(2);
    expect(existsSync(join(home, 'episodic.db'))).toBe(true);
  });

  it('says so when there is nothing to interrupt, and ends at the end of input', async () => {
    const result = await runDemo(['chat', '--home', temporaryHome()], {
      input: '/interrupt\nlist the files\n',
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('Nothing to interrupt: no turn is running.');
    expect(result.stdout).toContain('The workspace has 5 files');
    expect(result.stdout).toMatch(/Task episode [0-9a-f-]{36} completed/);
  });
});
