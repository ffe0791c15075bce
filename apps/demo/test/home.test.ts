import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_HOME_MARKER, defaultDemoHome } from '../src/demo-home.js';
import type { DemoReport } from '../src/report.js';
import { runDemo, temporaryDirectory, temporaryHome } from './run-built-demo.js';

const appFolder = dirname(dirname(fileURLToPath(import.meta.url)));

describe('the demo home', () => {
  it('defaults to .episodic-demo inside the app folder, wherever the demo is started from', async () => {
    expect(defaultDemoHome()).toBe(join(appFolder, '.episodic-demo'));
    const elsewhere = temporaryDirectory('episodic-demo-cwd-');
    const result = await runDemo(['--json'], { cwd: elsewhere });
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as DemoReport;
    expect(report.home).toEqual({
      path: join(appFolder, '.episodic-demo'),
      fresh: true,
      isDefault: true,
    });
    expect(existsSync(join(appFolder, '.episodic-demo', DEMO_HOME_MARKER))).toBe(true);
    expect(existsSync(join(elsewhere, '.episodic-demo'))).toBe(false);
  });

  it('is recreated fresh on every run', async () => {
    const home = temporaryHome();
    const first = JSON.parse((await runDemo(['--json', '--home', home])).stdout) as DemoReport;
    writeFileSync(join(home, 'left-over.txt'), 'from an earlier run');
    const second = JSON.parse((await runDemo(['--json', '--home', home])).stdout) as DemoReport;
    expect(second.session.id).not.toBe(first.session.id);
    expect(existsSync(join(home, 'left-over.txt'))).toBe(false);
    expect(existsSync(first.paths.snapshots[0]?.path ?? '')).toBe(false);
  });

  it('refuses a non-empty folder it did not create, and deletes nothing', async () => {
    const home = join(temporaryDirectory('episodic-demo-foreign-'), 'precious');
    mkdirSync(home);
    writeFileSync(join(home, 'notes.txt'), 'keep me');
    const result = await runDemo(['--home', home]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('is not empty and was not created by the demo');
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('keep me');
  });

  it('prints the usage with --help, and exits 2 on unknown options', async () => {
    const help = await runDemo(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: pnpm demo [command] [options]');
    expect(help.stdout).toContain(join(appFolder, '.episodic-demo'));
    expect(help.stdout).toContain('pnpm demo --model openai:');
    const bad = await runDemo(['--frobnicate']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Unknown option --frobnicate.');
  });
});
