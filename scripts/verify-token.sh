#!/usr/bin/env bash
# Decode a JWT and verify its RS256 signature with openssl, without the server.
#   scripts/verify-token.sh "$(./teamdesk token ada)" [public key PEM, default dev/jwt/public.pem]
# Prints the header and the claims, then "Verified OK" (exit 0) or "Verification failure" (exit 1).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 <jwt> [public.pem]" >&2; exit 2; }
token=$1
key=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/dev/jwt/public.pem}
IFS=. read -r h p s extra <<<"$token"
if [ -z "$s" ] || [ -n "${extra:-}" ]; then echo "not a compact JWS (three dot-separated parts)" >&2; exit 2; fi

b64url_decode() {
    local x
    x=$(printf '%s' "$1" | tr '_-' '/+')
    while [ $((${#x} % 4)) -ne 0 ]; do x="$x="; done
    printf '%s' "$x" | openssl base64 -d -A
}

echo "header: $(b64url_decode "$h")"
echo "claims: $(b64url_decode "$p")"
sig=$(mktemp)
trap 'rm -f "$sig"' EXIT
b64url_decode "$s" >"$sig"
printf '%s' "$h.$p" | openssl dgst -sha256 -verify "$key" -signature "$sig"
