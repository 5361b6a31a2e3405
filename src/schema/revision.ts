import type { Revision } from '../kernel/revision.ts';

export { isRevision, LATEST_REVISION, REVISIONS, type Revision } from '../kernel/revision.ts';

/** What the restricted schema allows in a revision (schema/<revision>/schema.ts). */
export interface RevisionFeatures {
  /** `default` on string, number and enum fields (booleans always had it). */
  readonly defaultsOnAll: boolean;
  /** Titled single-select (`oneOf` of `{const, title}`). */
  readonly titledSelect: boolean;
  /** Multi-select fields (`type: "array"`) and `string[]` answers. */
  readonly multiSelect: boolean;
  /** `$schema` on the requested schema. */
  readonly dollarSchema: boolean;
}

const MODERN: RevisionFeatures = {
  defaultsOnAll: true,
  titledSelect: true,
  multiSelect: true,
  dollarSchema: true,
};
const FEATURES: Record<Revision, RevisionFeatures> = {
  '2025-06-18': {
    defaultsOnAll: false,
    titledSelect: false,
    multiSelect: false,
    dollarSchema: false,
  },
  '2025-11-25': MODERN,
  '2026-07-28': MODERN,
};

export function revisionFeatures(revision: Revision): RevisionFeatures {
  return FEATURES[revision];
}
