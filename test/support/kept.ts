import type pg from 'pg';

/** A kept_message row as a test reads it back. */
export interface KeptRowRead {
  id: number;
  message_key: string;
  kept_as: string;
  reason: string;
  source: string;
  body: string;
  body_encoding: string;
  body_bytes: number;
  kept_bytes: number;
  origin: Record<string, unknown>;
  replay_state: string | null;
  replays: number;
  replay_error: string | null;
}

/** The consumer's kept messages, oldest first. */
export async function keptRows(pool: pg.Pool, consumer: string): Promise<KeptRowRead[]> {
  const { rows } = await pool.query<KeptRowRead>(`SELECT id::int, message_key, kept_as, reason, source, body, body_encoding, body_bytes, kept_bytes, origin,
      replay_state, replays, replay_error
    FROM kept_message WHERE consumer_name = $1 ORDER BY id`, [consumer]);
  return rows;
}
