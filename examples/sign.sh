#!/usr/bin/env bash
# Signed request with curl and openssl only (spec §5.2), for partners not on Node.
# Usage: CLIENT_ID=... SECRET_KEY=sk_test_... ENCRYPTION_KEY=enc_test_... \
#        examples/sign.sh POST /v1/orders/quote '{"from":{"currency":"NGN","amount":50000},"to":{"currency":"USDT","network":"base-sepolia"}}'
set -euo pipefail
BASE_URL=${BASE_URL:-http://127.0.0.1:4010}
METHOD=$1 REQ_PATH=$2 BODY=${3:-}
TS=$(( $(date +%s) * 1000 ))   # Unix time in milliseconds (whole seconds are fine)
SIG=$(printf '%s' "$CLIENT_ID|$TS|$METHOD|$REQ_PATH|$BODY" | openssl dgst -sha256 -hmac "$ENCRYPTION_KEY" -r | cut -d' ' -f1)
args=(-sS -X "$METHOD" "$BASE_URL$REQ_PATH"
  -H "svc-client-id: $CLIENT_ID" -H "Authorization: Bearer $SECRET_KEY"
  -H "svc-timestamp: $TS" -H "svc-signature: sha256=$SIG")
if [ -n "$BODY" ]; then args+=(-H 'Content-Type: application/json' --data-raw "$BODY"); fi
curl "${args[@]}"
