#!/usr/bin/env bash
# Prints a queue Lua script with its `--!include <file>` lines expanded, exactly as the queue's
# LuaScript sends it to Redis (same text, same SHA-1), so that it can be run by hand:
#
#   scripts/lua-expand.sh moveToActive > /tmp/moveToActive.lua
#   redis-cli --eval /tmp/moveToActive.lua q:wait q:active q:delayed q:marker q:lanes q:lane-seq , q:job: token-1 30000
#
# Keys go before the comma, arguments after it, in the order of the script's header.
# Usage: scripts/lua-expand.sh <name>   (a file src/main/resources/queue/lua/<name>.lua)
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/src/main/resources/queue/lua"
[ $# -eq 1 ] || { echo "usage: $0 <script name>   (one of: $(cd "$dir" && ls *.lua | sed 's/\.lua$//' | grep -vx helpers | tr '\n' ' '))" >&2; exit 2; }
file="$dir/${1%.lua}.lua"
[ -r "$file" ] || { echo "no script $file" >&2; exit 1; }
awk -v dir="$dir" '
  /^--!include[ \t]+[^ \t]+[ \t]*$/ {
    inc = dir "/" $2
    while ((getline line < inc) > 0) print line
    close(inc)
    next
  }
  { print }
' "$file"
