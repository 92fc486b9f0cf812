#!/bin/bash
# Session 57 first-call timings, branch and base alternated, one fresh process each:
#   bash tools/probe_loops_57.sh ROUNDS s1|s2|s1arr N
# BRANCH and BASE: the two worktrees (base: git worktree add --detach ../wt-loops57-base main)
BRANCH=${BRANCH:-/work/wt-loops57}
BASE=${BASE:-/work/wt-loops57-base}
PROBE=$(cd "$(dirname "$0")" && pwd)/probe_loops_57.py
for i in $(seq 1 "$1"); do for w in "$BRANCH" "$BASE"; do
  (cd "$w" && echo -n "$(basename "$w") " && PYTHONPATH=. timeout 900 python -W ignore "$PROBE" "$2" "$3"); done; done
