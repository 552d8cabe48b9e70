#!/usr/bin/env node
import { parseArgs } from 'node:util';

const USAGE = `Usage: gateway <command> [options]

Commands:
  serve  [--config FILE]                 start the gateway (default command)
  lint   [FILE] [--format text|json]     check gateway.yaml and routes/*.yaml; exit 1 on errors
  models [--config FILE] [--format text|json]  list every model with its status
  reload [--config FILE] [--pid PID]     check the config, then make the running gateway reload it (SIGHUP)
  migrate [--config FILE]                apply the ledger's database migrations (ledger.url)
  usage  --from DATE --to DATE --by key|team|model|provider|day [--format table|csv|json]
                                         usage report from the ledger ([from, to), UTC)
  status [--config FILE] [--format text|json]  list the instances sharing the store (exit 3: configs differ)

The config path comes from --config, else GATEWAY_CONFIG, else ./gateway.yaml.`;

/** Entry point of `gateway serve | lint | models`. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' }, format: { type: 'string', default: 'text' }, help: { type: 'boolean', short: 'h' }, pid: { type: 'string' },
      from: { type: 'string' }, to: { type: 'string' }, by: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [command = 'serve', file] = positionals;
  const configPath = file ?? values.config ?? process.env.GATEWAY_CONFIG ?? 'gateway.yaml';
  const format = values.format === 'json' ? 'json' : 'text';
  // Each command's modules are imported only when it runs: `serve` never loads pg (migrate,
  // usage) or ioredis (status) unless its config asks for them, and `lint` no server.
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).runServe(configPath);
    case 'lint':
      return (await import('./lint.js')).runLint(configPath, format);
    case 'models':
      return (await import('./models.js')).runModels(configPath, format);
    case 'reload':
      return (await import('./reload.js')).runReload(configPath, values.pid);
    case 'migrate':
      return (await import('./migrate.js')).runMigrate(configPath);
    case 'usage':
      return (await import('./usage.js')).runUsage(configPath, { from: values.from, to: values.to, by: values.by, format: values.format });
    case 'status':
      return (await import('./status.js')).runStatus(configPath, format);
    default:
      console.error(`unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => { if (code !== -1) process.exitCode = code; },
  (e: unknown) => { console.error((e as Error).message); process.exitCode = 1; },
);
