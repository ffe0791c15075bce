/** Bad flags or missing configuration: the demo prints the message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
