import type { ContentKind } from '../schema/ledger-event.js';

/**
 * One content detector. Secret rules follow gitleaks' prefixed-token rules (ported without the
 * RE2 inline `(?i)` modifiers that V8 rejects); PII and tool-output rules are ours.
 */
export interface ContentRule {
  /** A stable id; also the label of its placeholder, e.g. `[REDACTED:aws_key]`. */
  readonly id: string;
  readonly kind: ContentKind;
  /** What it detects, for documentation and error messages. */
  readonly description: string;
  /** A global (`g`) expression; with `group`, it also needs the `d` flag. */
  readonly pattern: RegExp;
  /** The capture group that holds the sensitive part (the rest of the match is context). */
  readonly group?: number;
  /** A second look at the sensitive part, to drop near misses the expression cannot exclude. */
  readonly accept?: (value: string) => boolean;
  /**
   * A cheap necessary condition (usually a literal the match must contain). When it is false the
   * expression is not run at all, which keeps scanning ordinary text fast.
   */
  readonly hint?: (text: string) => boolean;
}

/**
 * A built-in hint described as data, so the guard can evaluate the hints of every rule in one pass
 * over a text (see `createHintScanner`) instead of one scan per rule. The hint function stays the
 * definition; a test checks that both always agree.
 */
export interface HintSpec {
  /** The hint holds when the text contains one of these (case-sensitive). */
  readonly literals?: readonly string[];
  /** ...or one of these lowercase ASCII words, ignoring ASCII case (as a non-unicode `/i` regex). */
  readonly words?: readonly string[];
  /** ...or a run of at least this many ASCII digits. */
  readonly digitRun?: number;
}

const HINT_SPECS = new WeakMap<(text: string) => boolean, HintSpec>();

/** The data form of a built-in hint; undefined for a hint written as a plain function. */
export function hintSpecOf(hint: (text: string) => boolean): HintSpec | undefined {
  return HINT_SPECS.get(hint);
}

function describedHint(hint: (text: string) => boolean, spec: HintSpec) {
  HINT_SPECS.set(hint, spec);
  return hint;
}

const has = (...literals: string[]) =>
  describedHint((text) => literals.some((literal) => text.includes(literal)), { literals });
const hasWord = (...words: string[]) => {
  const pattern = new RegExp(words.join('|'), 'i');
  return describedHint((text) => pattern.test(text), { words });
};
const hasLiteralOrDigits = (literal: string, digitRun: number) => {
  const digits = new RegExp(`[0-9]{${digitRun}}`);
  return describedHint((text) => text.includes(literal) || digits.test(text), {
    literals: [literal],
    digitRun,
  });
};

const hasDigit = (value: string) => /[0-9]/.test(value);
const hasUpper = (value: string) => /[A-Z]/.test(value);
const hasLower = (value: string) => /[a-z]/.test(value);

/** A credential value that is really a reference, a placeholder or a plain word. */
export function looksLikeCredentialValue(value: string): boolean {
  if (value.length < 6) return false;
  if (/^[$<{[(%*#&?!]/.test(value)) return false; // ${VAR}, <token>, {{x}}, [REDACTED], ****
  if (/^(.)\1*$/.test(value)) return false; // xxxxxxxx
  if (/^[A-Za-z]+$/.test(value)) return false; // required, enabled, changeme
  if (/^[0-9]+$/.test(value)) return false; // counts, ids, timestamps
  if (/^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$/.test(value)) return false; // process.env.API_KEY
  return true;
}

/** Object keys whose string value is a credential, e.g. `{ "password": "…" }`. */
export const CREDENTIAL_KEY =
  /(?:^|[^A-Za-z0-9])(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth[_-]?token)$|^(?:password|passwd|passphrase|secret|token|credentials?)$/i;

const FILE_EXTENSIONS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'ico',
  'js',
  'mjs',
  'cjs',
  'ts',
  'tsx',
  'jsx',
  'json',
  'css',
  'html',
  'md',
  'txt',
  'py',
  'rb',
  'go',
  'rs',
  'java',
  'yaml',
  'yml',
  'toml',
  'lock',
  'log',
  'pdf',
  'zip',
  'gz',
  'tar',
]);

function digitCount(value: string): number {
  let count = 0;
  for (const character of value) if (character >= '0' && character <= '9') count++;
  return count;
}

/**
 * The default detectors, in the order they run. When two matches overlap, the one that starts
 * first (then the longer) wins, so a private key is one finding, not dozens.
 */
export const DEFAULT_CONTENT_RULES: readonly ContentRule[] = [
  {
    id: 'private_key',
    hint: has('PRIVATE KEY'),
    kind: 'secret',
    description: 'a PEM private key block (RSA, EC, OpenSSH, PGP, …), whole or cut off',
    pattern:
      /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  {
    id: 'anthropic_key',
    hint: has('sk-ant-'),
    kind: 'secret',
    description: 'an Anthropic API or admin key (sk-ant-…)',
    pattern: /(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|sid|oat)[0-9]{2}-[A-Za-z0-9_-]{32,}/g,
  },
  {
    id: 'openai_key',
    hint: has('sk-'),
    kind: 'secret',
    description: 'an OpenAI-style secret key (sk-…, sk-proj-…)',
    pattern: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g,
    accept: (value) =>
      value.includes('T3BlbkFJ') || (hasDigit(value) && hasUpper(value) && hasLower(value)),
  },
  {
    id: 'aws_key',
    hint: has('AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'),
    kind: 'secret',
    description: 'an AWS access key id (AKIA…, ASIA…)',
    pattern: /(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])/g,
  },
  {
    id: 'github_token',
    hint: has('gh', 'github_pat_'),
    kind: 'secret',
    description: 'a GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)',
    pattern:
      /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{82})(?![A-Za-z0-9_])/g,
  },
  {
    id: 'gitlab_token',
    hint: has('glpat-'),
    kind: 'secret',
    description: 'a GitLab personal access token (glpat-…)',
    pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g,
  },
  {
    id: 'slack_token',
    hint: has('xox', 'xapp-'),
    kind: 'secret',
    description: 'a Slack token (xoxb-, xoxp-, xoxa-, xoxe-, xoxo-, xoxr-, xoxs-, xapp-)',
    pattern:
      /(?<![A-Za-z0-9-])(?:xox[abeoprs]-[0-9]{8,13}-[A-Za-z0-9-]{8,}|xapp-[0-9]-[A-Za-z0-9]{8,}-[0-9]+-[A-Za-z0-9]{16,})/g,
  },
  {
    id: 'slack_webhook',
    hint: has('hooks.slack.com'),
    kind: 'secret',
    description: 'a Slack incoming webhook URL',
    pattern: /https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g,
  },
  {
    id: 'stripe_key',
    hint: has('_test_', '_live_', '_prod_'),
    kind: 'secret',
    description: 'a Stripe secret or restricted key (sk_live_…, rk_test_…)',
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}(?![A-Za-z0-9_])/g,
    accept: hasDigit,
  },
  {
    id: 'google_api_key',
    hint: has('AIza'),
    kind: 'secret',
    description: 'a Google API key (AIza…)',
    pattern: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g,
  },
  {
    id: 'npm_token',
    hint: has('npm_'),
    kind: 'secret',
    description: 'an npm access token (npm_…)',
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g,
  },
  {
    id: 'huggingface_token',
    hint: has('hf_'),
    kind: 'secret',
    description: 'a Hugging Face access token (hf_…)',
    pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z]{34}(?![A-Za-z0-9_])/g,
    accept: (value) => hasUpper(value) && hasLower(value),
  },
  {
    id: 'sendgrid_key',
    hint: has('SG.'),
    kind: 'secret',
    description: 'a SendGrid API key (SG.….…)',
    pattern: /(?<![A-Za-z0-9_])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
  },
  {
    id: 'jwt',
    hint: has('.ey'),
    kind: 'secret',
    description: 'a signed JSON Web Token (ey….ey….…)',
    pattern:
      /(?<![A-Za-z0-9_-])ey[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9_-]{15,}\.[A-Za-z0-9_-]{10,}={0,2}/g,
  },
  {
    id: 'auth_header',
    hint: has('earer', 'uthorization'),
    kind: 'secret',
    description: 'an Authorization header value or a bearer token',
    pattern:
      /(?:\b(?:[Pp]roxy-)?[Aa]uthorization["']?\s*[:=]\s*["']?(?:[Bb]earer|[Bb]asic|[Tt]oken|[Dd]igest)\s+|\b[Bb]earer\s+)([A-Za-z0-9._~+/-]{12,}=*)/dg,
    group: 1,
    accept: (value) => hasDigit(value) && /[A-Za-z]/.test(value),
  },
  {
    id: 'url_password',
    hint: has('://'),
    kind: 'secret',
    description: 'a password in a URL (scheme://user:password@host)',
    pattern: /\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>]+:([^\s/?#@"'<>]+)@[^\s/?#@"'<>]+/dg,
    group: 1,
    accept: (value) => !/^[$<{%*[]/.test(value),
  },
  {
    id: 'credential',
    hint: hasWord('pass', 'secret', 'token', 'key', 'credential'),
    kind: 'secret',
    description: 'a key=value or key: value credential (password=…, api_key: …, token=…)',
    pattern:
      /(?<![A-Za-z0-9])[A-Za-z0-9_.-]{0,40}?(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)["']?[ \t]*[:=][ \t]*["']?([^\s"',;&]{6,})/dgi,
    group: 1,
    accept: looksLikeCredentialValue,
  },
  {
    id: 'email',
    hint: has('@'),
    kind: 'pii',
    description: 'an email address',
    pattern:
      /(?<![A-Za-z0-9._%+/-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9:@_-]|\.[A-Za-z0-9])/g,
    accept: (value) => {
      const at = value.indexOf('@');
      const local = value.slice(0, at);
      const tld = value.slice(value.lastIndexOf('.') + 1).toLowerCase();
      return !local.startsWith('.') && !local.endsWith('.') && !FILE_EXTENSIONS.has(tld);
    },
  },
  {
    id: 'phone',
    hint: hasLiteralOrDigits('+', 3),
    kind: 'pii',
    description: 'a phone number (+44 20 7946 0958, (415) 555-2671, 415-555-2671)',
    pattern:
      /(?<![\w.+/-])(?:\+[1-9][0-9]{6,14}|\+[1-9][0-9]{0,3}(?:[ .-]\(?[0-9]{1,4}\)?)(?:[ .-][0-9]{2,4}){1,4}|\([0-9]{3}\)[ ]?[0-9]{3}[-. ][0-9]{4}|[0-9]{3}[-.][0-9]{3}[-.][0-9]{4})(?![\w:/-]|\.[0-9])/g,
    accept: (value) => {
      const digits = digitCount(value);
      return digits >= 10 && digits <= 15;
    },
  },
  {
    id: 'ansi_escape',
    hint: has('\u001b'),
    kind: 'tool_output',
    description: 'terminal escape sequences (colours, cursor moves, titles)',
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what this finds
    pattern: /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g,
  },
  {
    id: 'stack_trace',
    hint: has('at ', 'Traceback'),
    kind: 'tool_output',
    description: 'stack trace lines (Node, Java, Python)',
    pattern:
      /^[ \t]+at [^\n]{0,300}?\(?(?:[A-Za-z]:)?[^\s():]*[./][^\s():]*:[0-9]+(?::[0-9]+)?\)?[ \t]*$|Traceback \(most recent call last\):/gm,
  },
  {
    id: 'html_document',
    hint: hasWord('doctype'),
    kind: 'tool_output',
    description: 'a raw HTML document',
    pattern: /<!DOCTYPE html/gi,
  },
  {
    id: 'prompt_injection',
    hint: hasWord('ignore', 'disregard', 'forget'),
    kind: 'tool_output',
    description: 'an instruction-override phrase typical of prompt injection',
    pattern:
      /\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|prompts|directions|rules)\b/gi,
  },
];
