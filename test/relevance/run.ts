// `npm run bench -- --relevance`: the judged query set (fixtures/real-programs/judgments.json)
// through every engine in every matching mode, beside stock Elasticsearch on the same corpus, in
// one table (test/relevance/report.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { evaluate, labelOf, type Evaluation } from './evaluate.js';
import { corpusFile, loadCorpus, loadJudgments } from './judgments.js';
import { MATCHING_MODES, modeOf, type MatchingMode } from './modes.js';
import { formatMarkdown, formatText, formatWorst } from './report.js';
import { elasticsearchSystem, embeddedSystem, stockElasticsearchSystem, type SearchSystem } from './systems.js';

export const RELEVANCE_HELP = `Usage: npm run bench -- --relevance [options]

Loads the real-program corpus (fixtures/real-programs) into the embedded engine and, when
ELASTICSEARCH_URL is set, into the Elasticsearch engine (an alias of its own) and into a stock
Elasticsearch index (english analyzer, multi_match over title^3, funder^2, description, OR).
Runs every judged query (fixtures/real-programs/judgments.json) through each engine's real search
path (GET /grants parameters -> GrantQuery -> engine) in each matching mode, and prints nDCG@10,
recall@10, MRR@10 and the queries with no result, per class and overall, in one table.

Options:
  --corpus FILE    the corpus (default: RELEVANCE_CORPUS, else programs.ndjson.gz; a bare name
                   is looked up in fixtures/real-programs)
  --mode PARAMS    (repeatable) measure only these matching modes, each given as its extra
                   GET /grants parameters ("default" for none), e.g. --mode default
                   --mode 'typos=auto&matching=frequency'; without it, every mode of
                   test/relevance/modes.ts
  --engine E       the engines under test: embedded, elasticsearch or all (default all;
                   Elasticsearch only when ELASTICSEARCH_URL is set); the stock baseline
                   runs beside them whenever ELASTICSEARCH_URL is set
  --markdown       print the table as Markdown (for docs/performance.md)
  --worst N        also list each column's N lowest-scoring queries
  --out FILE       also write every query's ranked ids and scores as JSON
  -h, --help       this help`;

interface Options {
  corpus: string;
  modes: readonly MatchingMode[];
  engines: 'embedded' | 'elasticsearch' | 'all';
  markdown: boolean;
  worst: number;
  out: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--relevance'),
    strict: true,
    allowPositionals: false,
    options: {
      corpus: { type: 'string' },
      mode: { type: 'string', multiple: true },
      engine: { type: 'string' },
      markdown: { type: 'boolean', default: false },
      worst: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const engines = values.engine ?? 'all';
  if (engines !== 'embedded' && engines !== 'elasticsearch' && engines !== 'all')
    throw new Error(`--engine must be embedded, elasticsearch or all (got "${engines}")`);
  const worst = values.worst ?? '0';
  if (!/^\d{1,3}$/.test(worst)) throw new Error(`--worst must be an integer from 0 to 999 (got "${worst}")`);
  return {
    corpus: corpusFile(values.corpus === undefined ? process.env : { RELEVANCE_CORPUS: values.corpus }),
    modes:
      values.mode === undefined
        ? MATCHING_MODES
        : values.mode.map((m) => (m === 'default' ? MATCHING_MODES[0] : modeOf(m))),
    engines,
    markdown: values.markdown ?? false,
    worst: Number(worst),
    out: values.out === undefined ? null : path.resolve(values.out),
  };
}

const say = (line: string): void => {
  process.stderr.write(`» ${line}\n`);
};

export async function runRelevanceBench(argv: string[]): Promise<number> {
  const o = parseOptions(argv);
  if (o === null) {
    process.stdout.write(`${RELEVANCE_HELP}\n`);
    return 0;
  }
  const grants = loadCorpus(o.corpus);
  const queries = loadJudgments(new Set(grants.map((g) => g.id)));
  say(`${grants.length} grants from ${path.basename(o.corpus)}, ${queries.length} judged queries`);
  const esUrl = process.env.ELASTICSEARCH_URL?.trim().replace(/\/+$/, '') || null;
  if (o.engines === 'elasticsearch' && esUrl === null)
    throw new Error('--engine elasticsearch needs ELASTICSEARCH_URL');
  if (esUrl === null)
    say(
      'ELASTICSEARCH_URL is not set: the embedded engine alone, without the Elasticsearch engine and the stock ' +
        'baseline',
    );

  const builders: Array<() => Promise<SearchSystem>> = [];
  if (o.engines !== 'elasticsearch') builders.push(() => embeddedSystem(grants));
  if (esUrl !== null && o.engines !== 'embedded') builders.push(() => elasticsearchSystem(esUrl, grants));
  if (esUrl !== null) builders.push(() => stockElasticsearchSystem(esUrl, grants));

  const evaluations: Evaluation[] = [];
  for (const build of builders) {
    const started = Date.now();
    const system = await build();
    say(`${system.name}: loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    try {
      for (const mode of system.hasModes ? o.modes : o.modes.slice(0, 1)) {
        const evaluation = await evaluate(system, mode, queries);
        say(`${labelOf(evaluation)}: nDCG@10 ${evaluation.overall.ndcg.toFixed(3)}`);
        evaluations.push(evaluation);
      }
    } finally {
      await system.close();
    }
  }

  process.stdout.write(`${o.markdown ? formatMarkdown(evaluations) : formatText(evaluations)}\n`);
  if (o.worst > 0) for (const e of evaluations) process.stdout.write(`\n${formatWorst(e, o.worst)}\n`);
  if (o.out !== null) {
    const json = evaluations.map((e) => ({
      system: e.system,
      mode: e.mode,
      overall: e.overall,
      byClass: Object.fromEntries(e.byClass),
      queries: e.results.map((r) => ({
        id: r.query.id,
        search: r.query.search,
        total: r.answer.total,
        ranked: r.answer.ranked,
        ...r.score,
      })),
    }));
    writeFileSync(o.out, `${JSON.stringify({ corpus: path.basename(o.corpus), evaluations: json }, null, 2)}\n`);
    say(`written ${o.out}`);
  }
  return 0;
}
