"""Read a server's /metrics (the URL given); print the event loop's lag as JSON: p50 and p99 (bucket bounds, ms).

Used by server-vs-baseline.sh after a load (issue #42). Prints {} for servers without the metric (or away).
"""

from __future__ import annotations

import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def quantile_bound(buckets: list[tuple[float, float]], q: float) -> float:
    """Return the upper bound of the bucket holding the ``q`` quantile of cumulative ``buckets`` (le, count)."""
    total = buckets[-1][1]
    for le, count in buckets:
        if count >= q * total:
            return le
    return float("inf")


def main() -> None:
    """Print the lag's p50 and p99 bounds and the count of samples over 100 ms."""
    buckets: list[tuple[float, float]] = []
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=10) as response:
            text = response.read().decode()
    except OSError:
        text = ""
    for family in text_string_to_metric_families(text):
        if family.name == "treset_event_loop_lag_seconds":
            buckets = sorted((float(s.labels["le"]), s.value) for s in family.samples if s.name.endswith("_bucket"))
    if not buckets or buckets[-1][1] == 0:
        print("{}")
        return
    over = buckets[-1][1] - dict(buckets)[0.1]
    print(json.dumps({"lag_p50_ms": 1000 * quantile_bound(buckets, 0.5), "lag_p99_ms": 1000 * quantile_bound(buckets, 0.99),
                      "lag_samples": int(buckets[-1][1]), "lag_over_100ms": int(over)}))


if __name__ == "__main__":
    main()
