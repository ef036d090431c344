import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { moduleBoundaries } from './eslint/module-boundaries.js';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'build/',
      '**/.cache/',
      'wasm/prebuilt/',
      'test-results/',
      'playwright-report/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { lmtab: { rules: { 'module-boundaries': moduleBoundaries } } },
    languageOptions: { globals: { ...globals.browser, ...globals.node, ...globals.serviceworker } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'lmtab/module-boundaries': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Export names explicitly; no export *.' },
      ],
    },
  },
);
