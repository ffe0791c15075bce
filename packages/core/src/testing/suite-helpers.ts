import { expect, type TestContext } from 'vitest';
import { EpisodicError, type EpisodicErrorCode } from '../errors/episodic-error.js';
import type { CreateStoreHarness, StoreHarness } from './store-harness.js';

/** The contracts a harness may provide, by harness field. */
export type StoreContractKey = 'runs' | 'sessions' | 'ledger' | 'artifacts';

/**
 * Creates a fresh harness for one test and returns the store under test. When the harness does not
 * provide that contract, the test is skipped with the reason; the harness is closed after the test.
 */
export async function openStore<Key extends StoreContractKey>(
  context: TestContext,
  createHarness: CreateStoreHarness,
  key: Key,
  contract: string,
): Promise<{ harness: StoreHarness; store: NonNullable<StoreHarness[Key]> }> {
  const harness = await createHarness();
  const store = harness[key];
  if (store === undefined) {
    await harness.close();
    context.skip(`the harness provides no ${contract} (StoreHarness.${key} is not set)`);
  }
  context.onTestFinished(() => harness.close());
  return { harness, store: store as NonNullable<StoreHarness[Key]> };
}

/** Skips the test, with the reason, unless the capability is declared. */
export function requireCapability(
  context: TestContext,
  declared: boolean | undefined,
  capability: string,
): void {
  if (declared !== true) {
    context.skip(`the harness does not declare capabilities.${capability}`);
  }
}

/**
 * The `EpisodicError` a promise rejects with, whatever its code; throws when the promise resolves
 * or rejects with anything else (then the test fails on that).
 */
export async function rejection(promise: Promise<unknown>): Promise<EpisodicError> {
  try {
    await promise;
  } catch (error) {
    if (EpisodicError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** Awaits a promise that must reject with an `EpisodicError` of `code`; returns the error. */
export async function expectEpisodicError(
  promise: Promise<unknown>,
  code: EpisodicErrorCode,
): Promise<EpisodicError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a rejection with ${code}`).toBeDefined();
  expect(EpisodicError.isInstance(caught), `expected an EpisodicError, got ${String(caught)}`).toBe(
    true,
  );
  expect((caught as EpisodicError).code).toBe(code);
  return caught as EpisodicError;
}

/** UTF-8 bytes of `text` (the damage hooks take bytes). */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * A `readAfter` or `tail` result without its optional `headerLine` (a backend may or may not
 * report it), for comparing the rest exactly.
 */
export function withoutHeaderLine<Result extends { headerLine?: string }>(
  result: Result,
): Omit<Result, 'headerLine'> {
  const { headerLine: _headerLine, ...rest } = result;
  return rest;
}
