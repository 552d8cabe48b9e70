// The layering of src/, checked by dependency-cruiser on every `npm test` (`npm run lint:layers`).
// The same rules as ../shared/tools/layers.json (plus calls-know-no-koa), in words in README
// "Architecture": each part of src/ is a top-level folder (a root file such as src/paths.ts is
// its own part), and each rule names the imports a part must never make. An error names the
// rule, the importing file and the imported file. Type-only imports count: a type that points
// upward is a layer that leaks.

/** Paths of the named top-level folders of src/, as one regular expression. */
const parts = (...names) => `^src/(${names.join('|')})/`;

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
      name: 'server-knows-no-codec',
      severity: 'error',
      comment: 'Handlers hand requests to the call pipeline below (src/calls/); wire formats are its business.',
      from: { path: parts('server') },
      to: { path: parts('codecs') },
    },
    {
      name: 'calls-know-no-koa',
      severity: 'error',
      comment: 'The call pipeline sees the request through calls/exchange.ts (its state and the Node response), never a Koa type: it runs the same under any server.',
      from: { path: parts('calls') },
      to: { path: '^node_modules/(@types/)?(koa|koa-[^/]+|@koa/[^/]+|koa__[^/]+)/' },
    },
    {
      name: 'operator-features-below-server',
      severity: 'error',
      comment:
        'Operator features take request facts and handler types from lower modules; their HTTP handlers live with the server.',
      from: { path: parts('observability', 'ledger', 'admin') },
      to: { path: parts('server') },
    },
    {
      name: 'codecs-are-pure-translation',
      severity: 'error',
      comment: 'A wire format is pure translation.',
      from: { path: parts('codecs') },
      to: {
        path: parts('server', 'calls', 'routing', 'upstream', 'billing', 'store', 'mapping', 'providers', 'compile',
          'config', 'observability', 'ledger', 'admin', 'fleet', 'cli'),
      },
    },
    {
      name: 'upstream-knows-no-format-or-policy',
      severity: 'error',
      comment: 'The HTTP client knows no wire format and no policy: it owns the frame type and returns raw outcomes that routing classifies.',
      from: { path: parts('upstream') },
      to: {
        path: parts('codecs', 'routing', 'billing', 'calls', 'store', 'mapping', 'providers', 'compile',
          'observability', 'ledger', 'admin', 'fleet'),
      },
    },
    {
      name: 'config-is-data',
      severity: 'error',
      comment: 'Config is data: the loader lint uses knows nothing else.',
      from: { path: parts('config') },
      to: {
        path: parts('compile', 'calls', 'routing', 'billing', 'store', 'mapping', 'providers', 'upstream', 'codecs',
          'observability', 'ledger', 'admin', 'fleet'),
      },
    },
    {
      name: 'errors-are-data',
      severity: 'error',
      comment: 'Errors are data.',
      from: { path: parts('errors') },
      to: {
        path: parts('server', 'calls', 'routing', 'billing', 'store', 'mapping', 'providers', 'upstream', 'codecs',
          'compile', 'config', 'observability', 'ledger', 'admin', 'fleet'),
      },
    },
    {
      name: 'policy-and-state-below-pipeline',
      severity: 'error',
      comment: 'Policy and state sit below the call pipeline and the operator features.',
      from: { path: parts('routing', 'billing', 'store', 'mapping', 'providers', 'fleet', 'compile') },
      to: { path: parts('calls', 'observability', 'ledger', 'admin') },
    },
    {
      name: 'store-holds-no-price-or-policy',
      severity: 'error',
      comment: 'A store holds numbers and state, not prices or policy.',
      from: { path: parts('store') },
      to: { path: parts('billing', 'routing') },
    },
    {
      name: 'pricing-makes-no-calls',
      severity: 'error',
      comment: 'Pricing makes no calls and knows no mapping transport.',
      from: { path: parts('billing') },
      to: { path: parts('upstream', 'mapping', 'providers') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    // Type-only imports are edges too (layers.mjs counts them the same way).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
    reporterOptions: { text: { highlightFocused: false } },
  },
};
