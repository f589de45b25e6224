// ESLint: typescript-eslint's recommended rules on every TypeScript file, plus the type-aware
// promise rules (a forgotten `await` loses an error or a write), which are the ones worth the
// type information's cost here.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'clients/typescript/src/schema.ts',
      'clients/typescript/out/**',
      '.cache/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: globals.node },
  },
  {
    // The pages the API serves run in the browser.
    files: ['src/http/pages/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'script' },
  },
  {
    // chai's assertions are property reads (`expect(x).to.be.true`).
    // Tests and the replay script read untyped JSON answers; chai's assertions are property reads
    // (`expect(x).to.be.true`).
    files: ['test/**/*.ts', 'scripts/replay.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // No line over Prettier's width (it does not break strings and comments): a long message is
    // split into pieces, a long comment rewrapped. A test's title stays on the line of its it()
    // (Prettier keeps it there whatever its length), and lines holding a regular expression or a
    // URL are data.
    files: [
      'src/**/*.{ts,js}',
      'indexer/**/*.ts',
      'test/**/*.ts',
      'scripts/**/*.{ts,mjs}',
      'clients/typescript/src/**/*.ts',
    ],
    rules: {
      'max-len': [
        'error',
        {
          code: 120,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignorePattern: String.raw`^\s*(it|describe\w*|context)\(['"\x60]`,
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // The terminal, log and CSV neutralisers match control characters on purpose.
      'no-control-regex': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
);
