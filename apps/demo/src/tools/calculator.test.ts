import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CalculatorError,
  evaluateExpression,
  formatNumber,
  MAX_EXPRESSION_LENGTH,
} from './calculator.js';

describe('evaluateExpression', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['4*12.50 + 2*7.25 + 3*95.00 + 1*18.40', 367.9],
    ['367.90 * (1 - 10/100)', 331.11],
    ['-2 ^ 2', -4],
    ['2 ^ 3 ^ 2', 512],
    ['(-2) ^ 2', 4],
    ['10 % 4', 2],
    ['--3', 3],
    ['+5', 5],
    ['.5 + 1e2', 100.5],
    ['  7  ', 7],
    ['8 / 4 / 2', 1],
    ['8 - 4 - 2', 2],
  ])('%s = %d', (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 10);
  });

  it.each([
    ['', 'the expression is empty'],
    ['1 / 0', 'division by zero at position 3'],
    ['5 % 0', 'division by zero'],
    ['(1 + 2', 'expected ")" to close the "(" at position 1'],
    ['1 + 2)', 'unexpected ) at position 6'],
    ['1 +', 'expected a number or "(", found the end of the expression'],
    ['2 * * 3', 'expected a number or "(", found * at position 5'],
    ['process.exit(1)', 'unexpected character "p" at position 1'],
    ['constructor', 'unexpected character "c"'],
    ['1; 2', 'unexpected character ";"'],
    ['10 ^ 400', 'not a finite number'],
    [`${'('.repeat(100)}1${')'.repeat(100)}`, 'nests deeper than'],
    [`${'-'.repeat(100)}1`, 'nests deeper than'],
    ['1'.repeat(MAX_EXPRESSION_LENGTH + 1), 'characters long'],
  ])('refuses %j (%s)', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(CalculatorError);
    expect(() => evaluateExpression(expression)).toThrow(message);
  });

  it('formats results without float noise or -0', () => {
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(-0)).toBe('0');
    expect(formatNumber(367.9)).toBe('367.9');
  });
});

type Tree = number | { op: '+' | '-' | '*'; left: Tree; right: Tree } | { neg: Tree };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 0, max: 1000 }),
    fc.record({
      op: fc.constantFrom('+' as const, '-' as const, '*' as const),
      left: tie('tree'),
      right: tie('tree'),
    }),
    fc.record({ neg: tie('tree') }),
  ),
})).tree;

const render = (node: Tree): string =>
  typeof node === 'number'
    ? String(node)
    : 'neg' in node
      ? `-(${render(node.neg)})`
      : `(${render(node.left)} ${node.op} ${render(node.right)})`;

const value = (node: Tree): number =>
  typeof node === 'number'
    ? node
    : 'neg' in node
      ? -value(node.neg)
      : node.op === '+'
        ? value(node.left) + value(node.right)
        : node.op === '-'
          ? value(node.left) - value(node.right)
          : value(node.left) * value(node.right);

describe('evaluateExpression (properties)', () => {
  it('evaluates every parenthesized integer expression exactly', () => {
    fc.assert(
      fc.property(tree, (node) => {
        const text = render(node);
        fc.pre(text.length <= MAX_EXPRESSION_LENGTH && Math.abs(value(node)) < 2 ** 50);
        expect(evaluateExpression(text) + 0).toBe(value(node) + 0);
      }),
    );
  });

  it('returns a finite number or throws CalculatorError for any text, never anything else', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789.+-*/%^() eE,;ax'), maxLength: 60 }),
        (text) => {
          try {
            expect(Number.isFinite(evaluateExpression(text))).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(CalculatorError);
          }
        },
      ),
    );
  });
});
