#!/usr/bin/env node
import { runAdmin } from '../dist/src/cli/admin.js';

process.exitCode = await runAdmin(process.argv.slice(2));
