import { EpisodicError } from '../errors/index.js';

/** The EpisodicError `promise` rejects with; throws when it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<EpisodicError> {
  try {
    await promise;
  } catch (error) {
    if (EpisodicError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** The EpisodicError `action` throws; throws when it returns or throws anything else. */
export function thrownError(action: () => unknown): EpisodicError {
  try {
    action();
  } catch (error) {
    if (EpisodicError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an EpisodicError to be thrown');
}
