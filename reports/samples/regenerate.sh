#!/usr/bin/env bash
# Regenerate the sample reports (docs/report.md), from anywhere:
#
#     reports/samples/regenerate.sh
#
# reference/  the bundled reference game, certified (exit 0)
# mutant/     a mutant of it that pays a flush at even money, not certified (exit 1)
#
# Both runs read sample-plan.toml (a fictional laboratory; the reference game's source
# as the build submitted) and are signed with a throwaway key made here and discarded:
# signer.pem is its certificate, so `chcert verify reports/samples/reference/report.pdf
# --trust reports/samples/signer.pem` shows what verification looks like. Report ids,
# dates and hashes differ at every regeneration; the verdicts and findings do not.
set -euo pipefail
cd "$(dirname "$0")"
key="$(mktemp -d)"
trap 'rm -rf "$key"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
  -keyout "$key/sample.key" -out signer.pem \
  -subj "/CN=chcert sample signer (throwaway key, no laboratory)" \
  -addext "keyUsage=critical,digitalSignature,nonRepudiation" 2>/dev/null

certify() {  # certify NAME EXPECTED_EXIT [OPTIONS...]
  local name=$1 expected=$2 status=0
  shift 2
  chcert certify --plan sample-plan.toml --out "$name" --seed 7 --replace-signed \
    --sign-key "$key/sample.key" --sign-cert signer.pem "$@" || status=$?
  rm -f "$name/strategy.npz"  # 128 KB of the exact mathematics: `chcert math` remakes it
  if [ "$status" -ne "$expected" ]; then
    echo "regenerate.sh: $name exited $status, expected $expected" >&2
    exit 1
  fi
}
# The games run over JSON Lines, as a vendor's would; the mutant's build is the reference
# engine and the mutant's module (a command-line --artifact replaces the plan's list).
python="$(dirname "$(command -v chcert)")/python"
engine=../../harness/reference
certify reference 0 --adapter "subprocess:$python -m harness.reference"
certify mutant 1 --adapter "subprocess:$python -m harness.reference --mutant flush-pays-even-money" \
  --artifact "$engine/engine.py" --artifact "$engine/mutants/paytables.py"
chcert verify reference/report.pdf --trust signer.pem
