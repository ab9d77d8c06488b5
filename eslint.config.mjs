// Type-aware lint: floating promises, type-only imports, no stray `any`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from './eslint.boundaries.js';
import functionLength from './eslint.function-length.js';
import sharedLayers from './eslint.shared-layers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read settings through shared/config.ts only.',
        },
      ],
    },
  },
  ...boundaries,
  ...functionLength,
  ...sharedLayers,
  {
    files: ['shared/config.ts', 'test/**/*.ts', 'test/**/*.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
