/**
 * elicit: complete and safe MCP elicitation. The root entry carries what every part shares;
 * each part has its own subpath (`elicit/schema`, …). No Node-only imports here.
 */
export { ElicitError, InternalError } from './errors.ts';
export {
  type ElicitErrorCode,
  ERROR_CODES,
  type ErrorCodeEntry,
  type ErrorPart,
  type ErrorReach,
} from './kernel/error-codes.ts';
export { LATEST_REVISION, REVISIONS, type Revision } from './schema/revision.ts';
export const VERSION = '0.1.0';
