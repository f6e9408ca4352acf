"""What refused submissions add to the database (a flood of them must add nothing).

A user fills the concurrent quota with two queued submissions, then POSTs N more, each with a
64 KiB source, which are all refused (429). The table shows what the refused POSTs added: rows of
submissions and events, source bytes, and the SQLite file's size (after a WAL checkpoint).

    .venv/bin/python bench/refusals.py            # N = 500
    .venv/bin/python bench/refusals.py --posts 2000
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.platform_env import Platform  # noqa: E402

SOURCE_BYTES = 64 * 1024


def measure() -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        cursor.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(source)), 0) FROM submissions_submission")
        submissions, source_bytes = cursor.fetchone()
        cursor.execute("SELECT COUNT(*) FROM submissions_submissionevent")
        (events,) = cursor.fetchone()
        cursor.execute("PRAGMA page_count")
        (pages,) = cursor.fetchone()
        cursor.execute("PRAGMA page_size")
        (page_size,) = cursor.fetchone()
    return {"submissions": submissions, "events": events, "source_bytes": source_bytes,
            "db_bytes": pages * page_size}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posts", type=int, default=500, help="refused POSTs to send (default 500)")
    args = parser.parse_args()
    platform = Platform(extra_env={"HIPJUDGE_QUOTA_CONCURRENT": "2"})
    logging.getLogger("django.request").setLevel(logging.ERROR)  # not one line per refused POST
    try:
        from django.contrib.auth import get_user_model
        from rest_framework.test import APIClient

        user = get_user_model().objects.create_user("bench", password="bench-password-1")
        client = APIClient()
        client.force_authenticate(user)
        body = {"problem": "vector-add", "language": "cpp", "source": "int x;" + "/" * (SOURCE_BYTES - 6)}
        for _ in range(2):
            assert client.post("/api/v1/submissions", body, format="json").status_code == 201
        before = measure()
        started = time.monotonic()
        statuses: dict[int, int] = {}
        for _ in range(args.posts):
            code = client.post("/api/v1/submissions", body, format="json").status_code
            statuses[code] = statuses.get(code, 0) + 1
        elapsed = time.monotonic() - started
        after = measure()
    finally:
        platform.close()
        shutil.rmtree(platform.tmp, ignore_errors=True)
    print(f"{args.posts} POSTs of a {SOURCE_BYTES // 1024} KiB source over the concurrent quota: "
          f"answers {statuses}, {elapsed:.1f} s")
    print(f"| {'added by the refused POSTs':<28} | {'value':>12} |")
    print(f"| {'-' * 28} | {'-' * 12}:|")
    for key in ("submissions", "events", "source_bytes", "db_bytes"):
        print(f"| {key:<28} | {after[key] - before[key]:>12,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
