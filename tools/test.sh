#!/usr/bin/env bash
# Set up everything the tests need on a fresh Debian machine (as root), then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dovecot >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq dovecot-imapd dovecot-core >/dev/null
fi
# the archive site's browser test: Debian's Chromium and its chromedriver (Selenium drives them; no download)
if { ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; } && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi
python3 -m pip install -q -e '.[test]'
python3 -m ruff check pbem tests
python3 -m pytest "$@"
