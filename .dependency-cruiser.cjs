// The layering of src/, checked by dependency-cruiser on every `npm test` (`npm run lint:layers`).
// The same rules as ../shared/tools/layers.json (plus calls-know-no-koa), in words in README
// "Architecture": each part of src/ is a top-level folder (a root file such as src/paths.ts is
// its own part), and each rule names the imports a part must never make. An error names the
// rule, the importing file and the imported file. Type-only imports count: a type that points
// upward is a layer that leaks.

/** Paths of the named top-level folders of src/, as one regular expression. */
const parts = (...names) => `^src/(${names.join('|')})/`;

/** A rule: files in the `from` folders must never import files in the `to` folders, because `comment`. */
const never = (name, comment, from, to) => ({ name, severity: 'error', comment, from: { path: parts(...from) }, to: { path: parts(...to) } });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files that import each other in a loop cannot be read or loaded one floor at a time.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'only-cli-starts-server',
      severity: 'error',
      comment: 'Only the CLI starts the server; nothing below it knows Koa.',
      from: { path: '^src/', pathNot: parts('cli', 'server') },
      to: { path: parts('server') },
    },
    {
      name: 'cli-is-the-top',
      severity: 'error',
      comment: 'The CLI is the top: nothing imports it.',
      from: { path: '^src/', pathNot: parts('cli') },
      to: { path: parts('cli') },
    },
    {
      name: 'calls-know-no-koa',
      severity: 'error',
      comment: 'The call pipeline sees the request through calls/exchange.ts (its state and the Node response), never a Koa type: it runs the same under any server.',
      from: { path: parts('calls') },
      to: { path: '^node_modules/(@types/)?(koa|koa-[^/]+|@koa/[^/]+|koa__[^/]+)/' },
    },
    never('server-knows-no-codec',
      'Handlers hand requests to the call pipeline below (src/calls/); wire formats are its business.',
      ['server'], ['codecs']),
    never('operator-features-below-server',
      'Operator features take request facts and handler types from lower modules; their HTTP handlers live with the server.',
      ['observability', 'ledger', 'admin'], ['server']),
    never('codecs-are-pure-translation',
      'A wire format is pure translation.',
      ['codecs'],
      ['server', 'calls', 'routing', 'upstream', 'billing', 'store', 'mapping', 'providers', 'compile', 'config',
        'observability', 'ledger', 'admin', 'fleet', 'cli']),
    never('upstream-knows-no-format-or-policy',
      'The HTTP client knows no wire format and no policy: it owns the frame type and returns raw outcomes that routing classifies.',
      ['upstream'],
      ['codecs', 'routing', 'billing', 'calls', 'store', 'mapping', 'providers', 'compile', 'observability', 'ledger',
        'admin', 'fleet']),
    never('config-is-data',
      'Config is data: the loader lint uses knows nothing else.',
      ['config'],
      ['compile', 'calls', 'routing', 'billing', 'store', 'mapping', 'providers', 'upstream', 'codecs', 'observability',
        'ledger', 'admin', 'fleet']),
    never('errors-are-data',
      'Errors are data.',
      ['errors'],
      ['server', 'calls', 'routing', 'billing', 'store', 'mapping', 'providers', 'upstream', 'codecs', 'compile', 'config',
        'observability', 'ledger', 'admin', 'fleet']),
    never('policy-and-state-below-pipeline',
      'Policy and state sit below the call pipeline and the operator features.',
      ['routing', 'billing', 'store', 'mapping', 'providers', 'fleet', 'compile'], ['calls', 'observability', 'ledger', 'admin']),
    never('store-holds-no-price-or-policy',
      'A store holds numbers and state, not prices or policy.',
      ['store'], ['billing', 'routing']),
    never('pricing-makes-no-calls',
      'Pricing makes no calls and knows no mapping transport.',
      ['billing'], ['upstream', 'mapping', 'providers']),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    // Type-only imports are edges too (layers.mjs counts them the same way).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
