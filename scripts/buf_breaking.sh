#!/usr/bin/env bash
# Check proto/ for breaking changes (buf rule set FILE) against the last committed API:
# - uncommitted changes under proto/ are compared with HEAD;
# - otherwise (a clean tree, as in CI) HEAD is compared with its parent, HEAD~1.
# BUF_BREAKING_AGAINST=<git ref> overrides the baseline. Without a baseline (first commit, no
# proto/ in the baseline, or a shallow clone that lacks it) it says so and succeeds.
# Usage: BUF=.tools/node_modules/.bin/buf scripts/buf_breaking.sh
set -euo pipefail

cd "$(dirname "$0")/.."
BUF=${BUF:-.tools/node_modules/.bin/buf}

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "buf-breaking: not a git work tree; no baseline, skipping"
  exit 0
fi

if [ -n "${BUF_BREAKING_AGAINST:-}" ]; then
  ref=$BUF_BREAKING_AGAINST
elif ! git rev-parse -q --verify 'HEAD^{commit}' >/dev/null; then
  echo "buf-breaking: no commit yet; no baseline, skipping"
  exit 0
elif [ -n "$(git status --porcelain --untracked-files=all -- proto)" ]; then
  ref=HEAD
else
  ref=HEAD~1
fi

if ! commit=$(git rev-parse -q --verify "${ref}^{commit}"); then
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    echo "buf-breaking: $ref is not in this shallow clone; no baseline, skipping"
    echo "buf-breaking: (run 'git fetch --unshallow' to check against it)"
  else
    echo "buf-breaking: $ref does not exist (first commit?); no baseline yet, skipping"
  fi
  exit 0
fi

if ! git ls-tree -r --name-only "$commit" -- proto | grep -q '\.proto$'; then
  echo "buf-breaking: $ref ($commit) has no proto files; no baseline yet, skipping"
  exit 0
fi

echo "buf-breaking: comparing proto/ with $ref ($commit)"
"$BUF" breaking proto --against ".git#ref=${commit},subdir=proto"
echo "buf-breaking: no breaking changes"
