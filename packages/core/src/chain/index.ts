// The chain (docs/design/verify.md): per-entry salted commitments, segment heads, the writer that
// stamps entries and the verifier fold over stored entries. No I/O, no node:crypto: SHA-256 and
// random bytes are injected.
export {
  anchorSigningText,
  chainCanonicalJson,
  type LedgerChainColumns,
  ledgerChainCanonicalJson,
  ledgerChainValue,
} from './canonical.js';
export {
  CHAIN_SEGMENT,
  erasureAfter,
  genesisHead,
  lineCommitment,
  rowCommitment,
  type Sha256,
  segmentHead,
} from './formulas.js';
export { type ChainLineMember, type ParsedChainLine, parseChainLine } from './line.js';
export {
  type AnchorFile,
  anchorFileSchema,
  type BaseChain,
  baseChainSchema,
  CHAIN_FINDINGS,
  CHAIN_STREAM_KINDS,
  type ChainFinding,
  type ChainFindingKind,
  type ChainMember,
  type ChainOption,
  type ChainReport,
  type ChainStreamKind,
  type ChainStreamRef,
  type ChainWhere,
  chainFindingSchema,
  chainMemberSchema,
  chainOptionSchema,
  chainReportSchema,
  type ErasureBy,
  type ErasureEntry,
  erasureBySchema,
  erasureEntrySchema,
  type VerifyReceipt,
  verifyReceiptSchema,
} from './schemas.js';
export {
  type ChainBaseInput,
  type ChainRowInput,
  type ChainStoredEnd,
  type ChainStreamSummary,
  type ChainVerifier,
  type ChainVerifierOptions,
  createChainVerifier,
} from './verifier.js';
export {
  type ChainLineStamp,
  type ChainStamp,
  type ChainStampOptions,
  type ChainState,
  type ChainWriter,
  type ChainWriterOptions,
  chainStateHead,
  createChainWriter,
  newChainState,
  resumeChainState,
} from './writer.js';
