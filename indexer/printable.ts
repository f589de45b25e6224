// Text read from a source, made safe to print on an operator's terminal or in a log line: control
// characters (an escape sequence, a carriage return, a line break) are shown as \u escapes, so a
// source cannot rewrite the terminal or forge report lines.
export const printable = (text: string): string =>
  text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
