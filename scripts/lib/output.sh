# shellcheck shell=bash
# Output helpers of ./teamdesk: step, info, ok, warn, die (colours on a terminal only).


if [ -t 1 ]; then
    B=$'\e[1m' RED=$'\e[31m' GRN=$'\e[32m' YEL=$'\e[33m' DIM=$'\e[2m' R=$'\e[0m'
else
    B='' RED='' GRN='' YEL='' DIM='' R=''
fi
step() { printf '%s==>%s %s%s%s\n' "$GRN" "$R" "$B" "$*" "$R"; }
info() { printf '    %s\n' "$*"; }
ok()   { printf '    %sok%s  %s\n' "$GRN" "$R" "$*"; }
warn() { printf '%sWARNING:%s %s\n' "$YEL" "$R" "$*" >&2; }
die()  { printf '\n%sERROR:%s %s\n' "$RED" "$R" "$*" >&2; exit 1; }
