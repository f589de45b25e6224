#!/usr/bin/env node
import { runIndexer } from '../dist/src/cli/indexer.js';

process.exitCode = await runIndexer(process.argv.slice(2));
