/** elicit/url: URL safety analysis for URL-mode elicitation. Pure: runs in browsers too. */

export { IDENTIFIER_STATUS_VERSION } from './allowed-data.ts';
export {
  type AnalyzeOptions,
  analyzeUrl,
  type Segment,
  type SegmentPart,
  type Severity,
  type UrlAnalysis,
  type UrlRefusal,
  type UrlRefusalCode,
  type UrlWarning,
  type UrlWarningCode,
} from './analyze.ts';
export { looseSkeleton, skeleton } from './confusables.ts';
export { CONFUSABLES_SOURCE } from './confusables-data.ts';
export { decodeLabel } from './punycode.ts';
export { WELL_KNOWN_DOMAINS } from './well-known.ts';
