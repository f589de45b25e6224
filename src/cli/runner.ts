// The one command-line runner of grants-admin and grants-indexer: finds the command, checks the
// options that command takes (node:util's parseArgs splits the line; any other option is a usage
// error), prints help, and turns what a command throws into a message on stderr and an exit code.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.js';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const stdio: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

/** Bad usage: a missing, unknown or malformed argument or option. */
export class UsageError extends Error {}

/** A run that stops with its own exit code and a one-line message (unknown id, refused change…). */
export class CliExit extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

type OptionType = 'string' | 'boolean';

export interface ParsedArgs {
  /** Options given, by long name: a string option's value, or true for a flag. */
  values: Record<string, string | true | undefined>;
  /** The positional arguments, as many as the command names (checked). */
  args: string[];
}

export interface Command {
  /** One word ("reindex") or two ("subscription list"), as typed. */
  name: string;
  /** The command's help, starting with "Usage: <program> <name> …" on its first line. */
  usage: string;
  /** The options it takes, by long name (without "--"); --help and -h are always accepted. */
  options: Record<string, OptionType>;
  /** Names of its positional arguments, all required, in order (shown in messages). */
  args?: string[];
  run: (parsed: ParsedArgs) => Promise<number>;
}

interface CliSpec {
  program: string;
  /** The main help, printed by --help and, with exit code `usage`, when no command is given. */
  help: string;
  exits: { ok: number; usage: number; failed: number };
  commands: Command[];
}

const HELP_WORDS = new Set(['--help', '-h', 'help']);

/**
 * Parses `argv` against the options a command takes (node:util's parseArgs splits it); every other option is a usage
 * error.
 */
export function parseCommandArgs(command: Command, argv: readonly string[]): ParsedArgs & { help: boolean } {
  const options = Object.fromEntries(Object.entries(command.options).map(([name, type]) => [name, { type }]));
  // Not strict: the messages are ours, and a string option takes the next argument whatever it
  // looks like, so "--monthly-limit -3" reaches the command's own check of the number.
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const values: ParsedArgs['values'] = {};
  const args: string[] = [];
  let help = false;
  for (const token of tokens) {
    if (token.kind === 'positional') args.push(token.value);
    if (token.kind !== 'option') continue;
    const arg = argv[token.index];
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`${command.name} does not take ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const type = Object.hasOwn(command.options, name) ? command.options[name] : undefined;
    if (type === undefined) throw new UsageError(`${command.name} does not take --${name}`);
    if (values[name] !== undefined) throw new UsageError(`--${name} is given more than once`);
    if (type === 'boolean') {
      if (token.inlineValue) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    if (token.value === undefined) throw new UsageError(`--${name} needs a value`);
    values[name] = token.value;
  }
  const names = command.args ?? [];
  if (help) return { values, args, help };
  if (args.length < names.length) throw new UsageError(`missing ${names[args.length]}`);
  if (args.length > names.length) throw new UsageError(`unexpected argument "${args[names.length]}"`);
  return { values, args, help };
}

/** Runs one command line; returns the exit code. Never throws. */
export async function runCli(spec: CliSpec, argv: readonly string[], io: Io): Promise<number> {
  const { program, exits } = spec;
  if (argv.length === 0) {
    io.out(spec.help);
    return exits.usage;
  }
  if (HELP_WORDS.has(argv[0])) {
    io.out(spec.help);
    return exits.ok;
  }
  const words = spec.commands[0]?.name.split(' ').length ?? 1;
  // "grants-admin key --help" names a group: the whole help. A one-word command (migrate, audit) has its own.
  if (
    words === 2 &&
    argv[1] !== undefined &&
    HELP_WORDS.has(argv[1]) &&
    !spec.commands.some((c) => c.name === argv[0])
  ) {
    io.out(spec.help);
    return exits.ok;
  }
  // A command is named by its own number of words (grants-admin has one-word "migrate" beside two-word ones).
  const command = spec.commands.find((c) => c.name === argv.slice(0, c.name.split(' ').length).join(' '));
  const name = command?.name ?? argv.slice(0, words).join(' ');
  if (command === undefined) {
    io.err(`${program}: unknown command "${name}"\nRun "${program} --help" for the commands.`);
    return exits.usage;
  }
  const synopsis = command.usage.split('\n')[0].replace(/^Usage: /, '');
  try {
    const parsed = parseCommandArgs(command, argv.slice(command.name.split(' ').length));
    if (parsed.help) {
      io.out(command.usage);
      return exits.ok;
    }
    return await command.run(parsed);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(
        `${program}: ${error.message}\nUsage: ${synopsis}\nRun "${program} ${name} --help" for its options, ` +
          `"${program} --help" for every command.`,
      );
      return exits.usage;
    }
    if (error instanceof ConfigError) {
      io.err(`${program}: ${error.message}`);
      return exits.usage;
    }
    if (error instanceof CliExit) {
      io.err(`${program}: ${error.message}`);
      return error.code;
    }
    io.err(`${program}: ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return exits.failed;
  }
}

/** The environment with DATA_DIR (and SEARCH_ENGINE) replaced by --data-dir (and --engine) when given. */
export function withOverrides(env: NodeJS.ProcessEnv, values: ParsedArgs['values']): NodeJS.ProcessEnv {
  const overrides: NodeJS.ProcessEnv = { ...env };
  if (typeof values['data-dir'] === 'string') overrides.DATA_DIR = values['data-dir'];
  if (typeof values.engine === 'string') overrides.SEARCH_ENGINE = values.engine;
  return overrides;
}

/** The message of a read-only command run where there is no database: it creates none. */
export const noDatabase = (file: string): string => `no database at ${file}; set DATA_DIR or --data-dir`;
