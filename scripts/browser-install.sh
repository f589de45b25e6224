#!/usr/bin/env bash
# Installs Debian's headless-capable Chromium at /usr/bin/chromium for the browser tests
# (test/browser/, driven by playwright-core). Does nothing when it is already there.
# Needs root or sudo; on a non-Debian system install Chromium yourself and set CHROMIUM_PATH.
set -euo pipefail
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [[ -x "$CHROMIUM_PATH" ]]; then
  echo "chromium: $("$CHROMIUM_PATH" --version 2>/dev/null || echo "$CHROMIUM_PATH")"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "no apt-get here: install Chromium and set CHROMIUM_PATH to its executable" >&2
  exit 1
fi
sudo=""
if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium
"$CHROMIUM_PATH" --version
