// Text written where a person reads it raw (a terminal, a log line someone tails) made inert:
// stored strings a tenant chose (key and alert names, URLs, origins) are shown, never obeyed. A
// terminal acts on C0 controls (ESC starts a sequence that recolours, moves the cursor or retitles
// the window; CR and LF forge lines), DEL, C1 controls (U+0080–U+009F, CSI among them) and the
// Unicode bidirectional controls and line separators (they reorder or break what is displayed),
// so each of those is written as a visible escape, and the backslash doubled so that an escape
// written by the tenant cannot pass for one of ours. These are the one definition of that
// neutralisation: the CLIs print through them and the logger writes every line through them.

/** What a terminal obeys (C0, DEL, C1, the bidi controls, the line and paragraph separators), and the backslash. */
const CONTROLS_OR_BACKSLASH = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;
/** What JSON.stringify leaves raw of those controls (it escapes C0 itself). */
const LEFT_RAW_BY_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

const hex = (c: string, width: number): string => c.charCodeAt(0).toString(16).padStart(width, '0');

/**
 * One stored string as a terminal may show it: every control written as a visible escape (\x1b, \n, \u202e),
 * backslashes doubled.
 */
export function forTerminal(text: string): string {
  return text.replace(
    CONTROLS_OR_BACKSLASH,
    (c) => SHORT[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`),
  );
}

/** A line of text with every interpolated value passed through forTerminal (the literal parts are ours and kept). */
export function terminal(parts: TemplateStringsArray, ...values: unknown[]): string {
  let line = parts[0];
  for (let i = 0; i < values.length; i++) line += forTerminal(String(values[i])) + parts[i + 1];
  return line;
}

/**
 * JSON text with the controls JSON.stringify leaves raw (DEL, C1, bidi, separators) written as
 * \uXXXX escapes: the same value for any JSON reader, inert on a terminal.
 */
export function inertJson(json: string): string {
  return json.replace(LEFT_RAW_BY_JSON, (c) => `\\u${hex(c, 4)}`);
}

/**
 * Text that a printer will JSON-escape (C0 controls) with what it would print raw (DEL, C1,
 * bidi, separators) written as visible \uXXXX escapes.
 */
export function inertText(text: string): string {
  return text.replace(LEFT_RAW_BY_JSON, (c) => `\\u${hex(c, 4)}`);
}

/** JSON.stringify(value), inert on a terminal (see inertJson). */
export const jsonForTerminal = (value: unknown): string => inertJson(JSON.stringify(value));
