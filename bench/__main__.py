"""``make bench``: every benchmark, each figure printed beside its target.

    python -m bench                 # engine, then the site at 2,500 and 10,000 tables
    python -m bench engine          # the engine only
    python -m bench site --sizes 10000
    python -m bench site --sizes 10000 --members 800   # how the costs grow with members
    python -m bench site --sizes 100000 --only leaderboard,profile,home --reuse
                                    # some endpoints; the club built once and kept
    python -m bench ratings         # a finish with and without rating inline; a rebuild

The site benchmarks build their own club in a scratch PostgreSQL database
(``clubsite_bench``, dropped and recreated each run), measure each endpoint in process
(server time, queries) and under gunicorn with wrk (requests per second), beside a bare
Django view measured the same way at the same moment.
"""

from __future__ import annotations

import argparse
import os
import sys

from bench import engine

DATABASE = "clubsite_bench"
DATABASE_URL = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"
SIZES = {2500: 100, 10000: 300, 100000: 300}  # finished tables → deals in the live pulka
MEMBERS = 200


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument(
        "what", nargs="?", choices=["all", "engine", "site", "ratings"], default="all"
    )
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in SIZES),
        help="finished-table counts to build, comma separated",
    )
    parser.add_argument("--members", type=int, default=MEMBERS, help="members at every size")
    parser.add_argument("--seconds", type=int, default=10, help="wrk run per endpoint")
    parser.add_argument(
        "--database", default=DATABASE, help="the scratch PostgreSQL database (dropped first)"
    )
    parser.add_argument(
        "--only",
        default="",
        help="measure only the endpoints whose names contain one of these comma-separated "
        "words (the bare view always): e.g. leaderboard,profile",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="copy the club from the copy kept by an earlier run of the same size and "
        "members, if any, instead of building it (and keep a copy after building)",
    )
    args = parser.parse_args(argv)
    if args.what in ("all", "engine"):
        engine.run()
    if args.what in ("all", "site"):
        from bench import site

        by_size = {}
        for size in (int(s) for s in args.sizes.split(",")):
            by_size[size] = site.run(
                args.database,
                DATABASE_URL.replace(DATABASE, args.database),
                tables=size,
                members=args.members,
                live_deals=SIZES.get(size, 300),
                seconds=args.seconds,
                only=[word for word in args.only.split(",") if word],
                reuse=args.reuse,
            )
        site.print_growth(by_size)
    if args.what == "ratings":
        from bench import ratings

        for size in (int(s) for s in args.sizes.split(",")):
            ratings.run(
                args.database,
                DATABASE_URL.replace(DATABASE, args.database),
                tables=size,
                members=args.members,
            )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    sys.exit(main(sys.argv[1:]))
