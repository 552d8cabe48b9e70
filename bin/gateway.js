#!/usr/bin/env node
// Thin launcher so `npx gateway ...` works after `npm run build`.
import('../dist/src/cli/main.js');
