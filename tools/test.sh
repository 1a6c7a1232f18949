#!/usr/bin/env bash
# Set up everything the tests need on a fresh Debian machine (as root), then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dovecot >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq dovecot-imapd dovecot-core >/dev/null
fi
python3 -m pip install -q -e '.[test]'
python3 -m ruff check pbem tests
python3 -m pytest "$@"
