import * as z from 'zod';
import { successReceiptSchema } from './receipt-base.js';

/** `ui --json`: one line once the UI listens; the server keeps running after it. */
export const uiReceiptSchema = successReceiptSchema('episodic.ui.v1', {
  /** The URL to open: the origin with the token. */
  url: z.string(),
  /** The origin without the token. */
  origin: z.string(),
  host: z.string(),
  port: z.number().int().min(1).max(65_535),
  /** Where runs and sessions live (`--store`). */
  store: z.string(),
  home: z.string(),
  database: z.string(),
});
