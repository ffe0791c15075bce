/**
 * A safe arithmetic evaluator for the demo's `calculator` tool: a recursive-descent parser over
 * numbers, `+ - * / %`, `^` (right-associative power), unary signs and parentheses. It never
 * calls `eval` or `Function`, so an expression can only ever be arithmetic.
 */

/** Why an expression could not be evaluated; the message is written for the model to read. */
export class CalculatorError extends Error {
  override readonly name = 'CalculatorError';
}

/** The longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 500;
/** The deepest nesting of parentheses and unary signs accepted. */
export const MAX_EXPRESSION_DEPTH = 64;

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'operator'; value: '+' | '-' | '*' | '/' | '%' | '^'; at: number }
  | { kind: 'open' | 'close'; at: number }
  | { kind: 'end'; at: number };

const NUMBER = /\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < expression.length) {
    const character = expression[index] as string;
    if (/\s/.test(character)) {
      index++;
      continue;
    }
    if ('+-*/%^'.includes(character)) {
      tokens.push({ kind: 'operator', value: character as '+', at: index });
      index++;
      continue;
    }
    if (character === '(' || character === ')') {
      tokens.push({ kind: character === '(' ? 'open' : 'close', at: index });
      index++;
      continue;
    }
    NUMBER.lastIndex = index;
    const match = NUMBER.exec(expression);
    if (match === null) {
      throw new CalculatorError(
        `unexpected character ${JSON.stringify(character)} at position ${index + 1}: use numbers, + - * / % ^ and parentheses`,
      );
    }
    tokens.push({ kind: 'number', value: Number(match[0]), at: index });
    index += match[0].length;
  }
  tokens.push({ kind: 'end', at: expression.length });
  return tokens;
}

/** Evaluates an arithmetic expression such as `(12.5 * 4 + 3) / 2`. Throws `CalculatorError`. */
export function evaluateExpression(expression: string): number {
  if (typeof expression !== 'string' || expression.trim() === '') {
    throw new CalculatorError('the expression is empty: pass arithmetic such as "2 * (3 + 4)"');
  }
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(
      `the expression is ${expression.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}`,
    );
  }
  const tokens = tokenize(expression);
  let position = 0;
  const peek = () => tokens[position] as Token;
  const describe = (token: Token) =>
    token.kind === 'end'
      ? 'the end of the expression'
      : `${token.kind === 'number' ? String(token.value) : token.kind === 'operator' ? token.value : token.kind === 'open' ? '(' : ')'} at position ${token.at + 1}`;

  const depthCheck = (depth: number) => {
    if (depth > MAX_EXPRESSION_DEPTH) {
      throw new CalculatorError(`the expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels`);
    }
  };

  const parseSum = (depth: number): number => {
    let value = parseProduct(depth);
    for (;;) {
      const token = peek();
      if (token.kind !== 'operator' || (token.value !== '+' && token.value !== '-')) return value;
      position++;
      const right = parseProduct(depth);
      value = token.value === '+' ? value + right : value - right;
    }
  };

  const parseProduct = (depth: number): number => {
    let value = parseUnary(depth);
    for (;;) {
      const token = peek();
      if (
        token.kind !== 'operator' ||
        (token.value !== '*' && token.value !== '/' && token.value !== '%')
      ) {
        return value;
      }
      position++;
      const right = parseUnary(depth);
      if ((token.value === '/' || token.value === '%') && right === 0) {
        throw new CalculatorError(`division by zero at position ${token.at + 1}`);
      }
      value =
        token.value === '*' ? value * right : token.value === '/' ? value / right : value % right;
    }
  };

  const parseUnary = (depth: number): number => {
    depthCheck(depth);
    const token = peek();
    if (token.kind === 'operator' && (token.value === '-' || token.value === '+')) {
      position++;
      const operand = parseUnary(depth + 1);
      return token.value === '-' ? -operand : operand;
    }
    return parsePower(depth);
  };

  const parsePower = (depth: number): number => {
    const base = parsePrimary(depth);
    const token = peek();
    if (token.kind === 'operator' && token.value === '^') {
      position++;
      // Right-associative, and binds tighter than a unary sign on its left: -2^2 = -4.
      return base ** parseUnary(depth + 1);
    }
    return base;
  };

  const parsePrimary = (depth: number): number => {
    const token = peek();
    if (token.kind === 'number') {
      position++;
      return token.value;
    }
    if (token.kind === 'open') {
      position++;
      depthCheck(depth + 1);
      const value = parseSum(depth + 1);
      const close = peek();
      if (close.kind !== 'close') {
        throw new CalculatorError(
          `expected ")" to close the "(" at position ${token.at + 1}, found ${describe(close)}`,
        );
      }
      position++;
      return value;
    }
    throw new CalculatorError(`expected a number or "(", found ${describe(token)}`);
  };

  const value = parseSum(0);
  const rest = peek();
  if (rest.kind !== 'end') {
    throw new CalculatorError(`unexpected ${describe(rest)}`);
  }
  if (!Number.isFinite(value)) {
    throw new CalculatorError('the result is not a finite number');
  }
  return value;
}

/** A result as a person writes it: at most 12 significant digits, no `-0`, no float noise. */
export function formatNumber(value: number): string {
  const rounded = Number(value.toPrecision(12));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}
