/** A label value as the tree keys it (statuses stay numbers, so no string is built per request). */
export type LabelKey = string | number;

/**
 * Pre-bound metric children by label values, in nested maps. A request looks its children up
 * with a scratch array the caller reuses, so the hot path allocates nothing once a combination
 * has been seen; `build` runs once per new combination (and may copy the labels it is given).
 */
export interface LabelTree<T> {
  get(labels: readonly LabelKey[]): T;
}

/** Creates a tree of `depth` label levels whose leaves `build` makes. */
export function createLabelTree<T>(depth: number, build: (labels: readonly LabelKey[]) => T): LabelTree<T> {
  const root = new Map<LabelKey, unknown>();
  return {
    get(labels) {
      let node = root;
      for (let i = 0; i < depth - 1; i++) {
        let next = node.get(labels[i]!) as Map<LabelKey, unknown> | undefined;
        if (!next) {
          next = new Map();
          node.set(labels[i]!, next);
        }
        node = next;
      }
      const last = labels[depth - 1]!;
      let leaf = node.get(last) as T | undefined;
      if (leaf === undefined) {
        leaf = build(labels);
        node.set(last, leaf);
      }
      return leaf;
    },
  };
}
