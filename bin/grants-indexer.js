#!/usr/bin/env node
import { runIndexer } from '../dist/indexer/cli.js';

process.exitCode = await runIndexer(process.argv.slice(2));
