import { EpisodicError } from '../errors/index.js';

export { rejection } from '../testing/suite-helpers.js';

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
