export {
  assertSqliteVersion,
  isSqliteVersionSupported,
  MINIMUM_SQLITE_VERSION,
} from './sqlite-version.js';
