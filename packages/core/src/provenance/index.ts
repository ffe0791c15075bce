// Public exports of this area, listed by name.
export type { AccessPolicy, AccessPredicate } from './access-policy.js';
export {
  accessPolicySchema,
  compileAccessPolicy,
  policyAllows,
  satisfiesAccessPolicy,
} from './access-policy.js';
export {
  compareCodePoints,
  compareMetadataScalars,
  isMetadataScalar,
  metadataScalarsEqual,
  metadataValuesOf,
} from './compare-metadata.js';
export type { EffectiveMetadata } from './effective-metadata.js';
export { effectiveMetadata } from './effective-metadata.js';
export type { MetadataPredicate } from './evaluate-filter.js';
export {
  compileMetadataFilter,
  matchesAnyEpisodeMetadata,
  matchesMetadataFilter,
} from './evaluate-filter.js';
export type {
  MetadataCondition,
  MetadataFilter,
  MetadataFilterGroupType,
  MetadataFilterOperator,
  MetadataFilterValue,
} from './metadata-filter.js';
export {
  METADATA_FILTER_GROUP_TYPES,
  METADATA_FILTER_MAX_CONDITIONS,
  METADATA_FILTER_MAX_DEPTH,
  METADATA_FILTER_MAX_LIST,
  METADATA_FILTER_OPERATORS,
  metadataConditionSchema,
  metadataFilterSchema,
  splitFilterList,
} from './metadata-filter.js';
