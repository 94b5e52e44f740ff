#!/usr/bin/env node
// Thin launcher: the program lives in dist/cli (built by `npm run build`, run by `npm ci`).
import { main } from '../dist/cli/index.js';

process.exitCode = await main(process.argv);
