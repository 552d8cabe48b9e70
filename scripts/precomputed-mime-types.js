// An esbuild plugin for the CLI bundle (scripts/build.js): mime-types with its tables computed
// at build time. At load, mime-types evaluates the whole MIME database (mime-db, ~2,500 types)
// and ranks every extension's candidate types to fill its `extensions` and `types` maps: ~20 ms
// and ~0.5 MB of heap on every start of the gateway, which only asks Koa for a handful of types.
// The bundle gets mime-types' own code with those two steps replaced by their results: the maps
// as JSON, and in place of the database, the one field its code still reads (`charset`, for the
// types that have one). test/lifecycle/precomputed-mime-types.test.ts bundles mime-types this way
// and compares every answer with the package's own. (Its ranking code stays, unused.)
//
// The plugin also makes that the bundle's only copy: Koa and type-is use mime-types 3, while
// accepts 1.3 carries its own 2.1 with its own mime-db, which parsed the database and built
// its maps on every start too (~6 ms). accepts only calls `lookup(ext)`, which both offer.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** The edits, each required to match once: a mime-types release that moves them fails the build. */
const EDITS = [
  { find: "var db = require('mime-db')", replace: (t) => `var db = JSON.parse(${JSON.stringify(JSON.stringify(t.charsets))})` },
  {
    find: 'populateMaps(exports.extensions, exports.types)',
    replace: (t) => [
      `Object.assign(exports.extensions, JSON.parse(${JSON.stringify(JSON.stringify(t.extensions))}))`,
      `Object.assign(exports.types, JSON.parse(${JSON.stringify(JSON.stringify(t.types))}))`,
      `exports._extensionConflicts.push(...JSON.parse(${JSON.stringify(JSON.stringify(t.conflicts))}))`,
    ].join('; '),
  },
];

/** What mime-types computes at load, computed here from the installed package. */
function tablesOf(requireFromRoot) {
  const mimeTypes = requireFromRoot('mime-types');
  // The database mime-types itself loads (resolved from its own folder).
  const db = createRequire(requireFromRoot.resolve('mime-types'))('mime-db');
  const charsets = {};
  for (const [type, entry] of Object.entries(db)) if (entry.charset) charsets[type] = { charset: entry.charset };
  return { charsets, extensions: { ...mimeTypes.extensions }, types: { ...mimeTypes.types }, conflicts: mimeTypes._extensionConflicts };
}

/**
 * The plugin: every importer of mime-types gets the copy that `requireFromRoot` resolves, and
 * that copy gets its own tables.
 */
export function precomputedMimeTypes(requireFromRoot) {
  const path = requireFromRoot.resolve('mime-types');
  return {
    name: 'precomputed-mime-types',
    setup(build) {
      build.onResolve({ filter: /^mime-types$/ }, () => ({ path }));
      let tables;
      build.onLoad({ filter: /[\\/]mime-types[\\/]index\.js$/ }, async (args) => {
        if (args.path !== path) return undefined;
        let source = await readFile(args.path, 'utf8');
        tables ??= tablesOf(requireFromRoot);
        for (const edit of EDITS) {
          const at = source.indexOf(edit.find);
          if (at < 0 || source.indexOf(edit.find, at + 1) >= 0) throw new Error(`${args.path}: expected \`${edit.find}\` once; update scripts/precomputed-mime-types.js`);
          source = source.slice(0, at) + edit.replace(tables) + source.slice(at + edit.find.length);
        }
        return { contents: source, loader: 'js' };
      });
    },
  };
}
