// The layering inside shared/ (issue 34): no folder of shared/ imports a folder that imports it
// back, directly or through others, and a folder that is a package of its own (a package.json
// beside its sources, e.g. shared/apk/) imports nothing outside itself. A file at the top of
// shared/ (config.ts, errors.ts, log.ts…) counts as a folder of its own. ESLint sees one file at
// a time, so the rule reads the whole shared/ tree once per run to know the folders' imports.
// Used by eslint.config.mjs and checked by test/unit/eslint.shared-layers.test.ts.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

/** The shared/ folder above `file`, or null. */
function sharedRootOf(file) {
  const parts = path.resolve(file).split(path.sep);
  const at = parts.lastIndexOf('shared');
  return at < 0 ? null : parts.slice(0, at + 1).join(path.sep);
}

/** The folder of shared/ that `file` belongs to: its first path segment ("config" for config.ts). */
function folderOf(root, file) {
  const first = path.relative(root, file).split(path.sep)[0];
  return first.replace(/\.(ts|js)$/, '');
}

function sourcesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The relative module specifiers `source` imports, re-exports or requires. */
function relativeImports(source) {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'));
}

/** folder -> folders it imports (inside the same shared/), read from disk once per root. */
const graphs = new Map();
function folderGraph(root) {
  if (graphs.has(root)) return graphs.get(root);
  const edges = new Map();
  for (const file of sourcesUnder(root)) {
    const from = folderOf(root, file);
    for (const spec of relativeImports(fs.readFileSync(file, 'utf8'))) {
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(root + path.sep)) continue;
      const to = folderOf(root, target);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(to);
    }
  }
  graphs.set(root, edges);
  return edges;
}

/** The folders from `start` to `goal` (both included) along imports, or null if none. */
function pathBetween(edges, start, goal) {
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift();
    if (at === goal) {
      const route = [];
      for (let step = at; step !== null; step = cameFrom.get(step)) route.unshift(step);
      return route;
    }
    for (const next of edges.get(at) ?? []) {
      if (!cameFrom.has(next)) {
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
  }
  return null;
}

/** The nearest folder at or above `dir`, inside shared/, that holds a package.json. */
function packageRootOf(root, dir) {
  for (let at = dir; at.startsWith(root + path.sep); at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, 'package.json'))) return at;
  }
  return null;
}

/** Calls `check(node, spec)` for every import, re-export and require of a string literal. */
function onImports(check) {
  const literal = (node, source) => {
    if (source && source.type === 'Literal' && typeof source.value === 'string') {
      check(node, source.value);
    }
  };
  return {
    ImportDeclaration: (node) => literal(node, node.source),
    ExportNamedDeclaration: (node) => literal(node, node.source),
    ExportAllDeclaration: (node) => literal(node, node.source),
    ImportExpression: (node) => literal(node, node.source),
    TSImportEqualsDeclaration: (node) => literal(node, node.moduleReference.expression),
    CallExpression: (node) => {
      if (node.callee.type === 'Identifier' && node.callee.name === 'require') {
        literal(node, node.arguments[0]);
      }
    },
  };
}

const noFolderLoop = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = context.filename;
    const root = sharedRootOf(file);
    if (root === null || !file.startsWith(root + path.sep)) return {};
    const from = folderOf(root, file);
    return onImports((node, spec) => {
      if (!spec.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(root + path.sep)) return;
      const to = folderOf(root, target);
      const back = to === from ? null : pathBetween(folderGraph(root), to, from);
      if (back === null) return;
      context.report({
        node,
        message: `shared/${from} imports shared/${to}, which imports it back (${back.join(' -> ')}): move the shared part down into a folder both may import, or the use-case up into a folder of its own.`,
      });
    });
  },
};

const selfContained = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = context.filename;
    const root = sharedRootOf(file);
    const pkg = root === null ? null : packageRootOf(root, path.dirname(file));
    if (pkg === null) return {};
    return onImports((node, spec) => {
      if (!spec.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), spec);
      if (target.startsWith(pkg + path.sep)) return;
      context.report({
        node,
        message: `shared/${path.relative(root, pkg)} is a package of its own (it has a package.json): it imports nothing outside itself.`,
      });
    });
  },
};

module.exports = [
  {
    files: ['shared/**/*.ts'],
    plugins: {
      'shared-layers': {
        rules: { 'no-folder-loop': noFolderLoop, 'self-contained': selfContained },
      },
    },
    rules: { 'shared-layers/no-folder-loop': 'error', 'shared-layers/self-contained': 'error' },
  },
];
