import { describe, expect, it } from 'vitest';
import { parseArguments } from './arguments.js';

describe('parseArguments', () => {
  it('runs the demo by default, with the built-in model and the default home', () => {
    expect(parseArguments([])).toEqual({
      command: 'run',
      home: null,
      model: 'built-in',
      json: false,
      aiSdk: false,
      session: null,
      input: null,
    });
  });

  it('reads --ai-sdk for the scripted demo', () => {
    expect(parseArguments(['--ai-sdk', '--json'])).toMatchObject({
      command: 'run',
      aiSdk: true,
      json: true,
    });
  });

  it('reads commands and options in any order, with or without =', () => {
    expect(parseArguments(['--json', '--home=/tmp/h', '--model', 'openai:m'])).toMatchObject({
      command: 'run',
      home: '/tmp/h',
      model: 'openai:m',
      json: true,
    });
    expect(parseArguments(['resume', '--session', 'abc', '--input', 'Hi there'])).toMatchObject({
      command: 'resume',
      session: 'abc',
      input: 'Hi there',
    });
    expect(parseArguments(['chat', '--home', 'h'])).toMatchObject({ command: 'chat', home: 'h' });
    expect(parseArguments(['verify', '--json'])).toMatchObject({ command: 'verify', json: true });
    expect(parseArguments(['chat', '--help']).command).toBe('help');
    expect(parseArguments(['-v']).command).toBe('version');
  });

  it.each([
    [['--home'], '--home needs a value'],
    [['--home', '--json'], '--home needs a value'],
    [['--model='], '--model needs a value'],
    [['--home', 'a', '--home', 'b'], '--home was given twice'],
    [['--colour'], 'Unknown option --colour'],
    [['dance'], 'Unknown command "dance"'],
    [['chat', 'verify'], 'Unexpected argument "verify"'],
    [['resume'], 'resume needs --session ID'],
    [['--session', 'x'], '--session and --input belong to the resume command'],
    [['verify', '--model', 'openai:m'], 'verify checks the files only'],
    [['chat', '--json'], 'chat is interactive'],
    [['chat', '--ai-sdk'], '--ai-sdk belongs to the scripted demo'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArguments(argv)).toThrow(message);
  });
});
