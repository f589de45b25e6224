// One sentence for a file a command was given that it cannot use: what is wrong with it, in
// words, instead of a raw ENOENT or EISDIR. Shared by grants-indexer and the replay script.
import { statSync } from 'node:fs';

const PROBLEMS: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'does not exist (a part of its path is a file, not a folder)',
  EACCES: 'cannot be read by this user (permission denied)',
  EPERM: 'cannot be read by this user (permission denied)',
  EISDIR: 'is a folder, not a file',
  ELOOP: 'is a loop of symbolic links',
  ENAMETOOLONG: 'has too long a name',
};

/** The system error code of an error, if it has one. */
const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * What is wrong with a path, from the error reading it raised ("does not exist"), or null when the error is not about
 * the path.
 */
export function fileProblem(error: unknown): string | null {
  const code = errorCode(error);
  return code === undefined ? null : (PROBLEMS[code] ?? null);
}

/**
 * Why `file` cannot be read as `want` ('file' or 'folder'), or null when it can be: a stat up
 * front, so a command says so before it starts any work.
 */
export function unusablePath(file: string, want: 'file' | 'folder'): string | null {
  try {
    const stat = statSync(file);
    if (want === 'file' && stat.isDirectory()) return PROBLEMS.EISDIR;
    if (want === 'folder' && !stat.isDirectory()) return 'is a file, not a folder';
    return null;
  } catch (error) {
    return fileProblem(error) ?? `cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
}
