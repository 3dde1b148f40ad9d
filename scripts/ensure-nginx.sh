#!/usr/bin/env bash
# The reverse-proxy test (tests/deploy/test_proxy.py) runs deploy/nginx.conf in Debian's nginx.
set -euo pipefail
if command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]]; then exit 0; fi
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
else
  echo "warning: nginx is missing (the proxy test is skipped); install Debian's nginx-light package" >&2
fi
