// The bench's PostgreSQL database for `--store postgres`: created empty on the given server for one
// run (the API's migrations fill it at start-up) and dropped afterwards. Driven with psql.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface BenchDatabase {
  name: string;
  url: string;
  count(table: string): Promise<number>;
  drop(): Promise<void>;
}

function psql(url: string, sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'psql',
      ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`psql: ${stderr.trim() || error.message}`));
        else resolve(stdout.trim());
      },
    );
  });
}

const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `grants_bench_${randomBytes(4).toString('hex')}`;
  const admin = withDatabase(serverUrl, 'postgres');
  await psql(admin, `create database "${name}"`);
  const url = withDatabase(serverUrl, name);
  return {
    name,
    url,
    count: async (table) => Number(await psql(url, `select count(*) from ${table}`)),
    drop: async () => void (await psql(admin, `drop database if exists "${name}" with (force)`)),
  };
}
