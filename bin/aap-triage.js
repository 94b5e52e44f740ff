#!/usr/bin/env node
// Thin launcher: the program is dist/bin/cli.js, dist/cli bundled into one file with lazy chunks
// (built by `npm run build`, run by `npm ci`; scripts/bundle-lib.mjs).
import { main } from '../dist/bin/cli.js';

process.exitCode = await main(process.argv);
