/** A problem with a file next to the run files: a snapshot, a temp file, a stray file. */
export interface FileProblem {
  /** `snapshot` for a session snapshot, `file` for anything else. */
  readonly area: 'snapshot' | 'file';
  readonly path: string;
  readonly message: string;
  /** `--fix` moves the file into the quarantine. */
  readonly fixable: boolean;
}
