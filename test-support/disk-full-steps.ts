/** The part of a session store the disk-full children drive (structural, so this file needs no core import). */
interface SnapshotSaver {
  save(
    state: {
      schema_version: 1;
      session_id: string;
      updated_at: string;
      messages: Array<{ role: 'user'; content: string }>;
      revision: number;
    },
    options: { expectedRevision: number | null },
  ): Promise<unknown>;
}

/**
 * Saves snapshots of one session 16 KiB larger each time until a save fails (the disk is full).
 * Returns the last revision that was acknowledged and the failure, described by `describe`.
 */
export async function saveGrowingSnapshots<Failure>(
  sessions: SnapshotSaver,
  sessionId: string,
  updatedAt: string,
  describe: (error: unknown) => Failure,
): Promise<{ savedRevision: number; failure: Failure | undefined }> {
  let savedRevision = 0;
  for (let revision = 1; revision < 1000; revision++) {
    try {
      await sessions.save(
        {
          schema_version: 1,
          session_id: sessionId,
          updated_at: updatedAt,
          messages: [{ role: 'user', content: 's'.repeat(revision * 16 * 1024) }],
          revision,
        },
        { expectedRevision: revision === 1 ? null : revision - 1 },
      );
      savedRevision = revision;
    } catch (error) {
      return { savedRevision, failure: describe(error) };
    }
  }
  return { savedRevision, failure: undefined };
}
