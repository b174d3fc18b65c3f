"""``spark-submit`` entry point of the Spark co-occurrence miner (seed 003 §2.2).

    spark-submit --master yarn --deploy-mode client \\
        "$(python -c 'import taiwa.resources.cooccurrence.spark_submit as m; print(m.__file__)')" \\
        --kind ngrams --sentences 20000000000 --out pairs.parquet hdfs:///1gms/ hdfs:///7gms/

Kept apart from :mod:`.spark_engine` so that the engine never imports the table writer that
imports it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from taiwa.core.errors import TaiwaError
from taiwa.resources.cooccurrence.config import MinerConfig, SparkSettings


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m taiwa.resources.cooccurrence.spark_submit",
        description="Mine LLR word association pairs (seed 003 §2.2) with Spark.",
        epilog="Under spark-submit pass this module's file instead; see the module docstring.",
    )
    ap.add_argument("inputs", nargs="+", help="input files or directories (local, hdfs://, ...)")
    ap.add_argument("--out", required=True, type=Path, help="output Parquet file (driver side)")
    ap.add_argument("--kind", choices=["text", "tokens", "ngrams"], default="text")
    ap.add_argument("--window", type=int, help="text/tokens: window of content words")
    ap.add_argument("--sentences", type=int, help="ngrams: F, the corpus' sentence count")
    ap.add_argument("--llr-threshold", type=float, default=10.0)
    ap.add_argument("--min-pair-count", type=int, default=2)
    ap.add_argument("--min-word-count", type=int, default=1)
    ap.add_argument("--exclude-top-k", type=int)
    ap.add_argument("--max-word-ratio", type=float)
    ap.add_argument("--keep-negative", action="store_true", help="also keep g F <= h_v h_w")
    ap.add_argument("--infeasible", choices=["clip", "drop"], default="clip")
    ap.add_argument("--no-content-check", action="store_true", help="ngrams: no analyzer check")
    ap.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    ap.add_argument("--shuffle-partitions", type=int)
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    return ap


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments, mine, print the report as JSON."""
    from pydantic import ValidationError

    from taiwa.core.io import dumps
    from taiwa.resources.cooccurrence.table import mine_cooccurrence

    ap = _parser()
    args = ap.parse_args(argv)
    bad = [item for item in args.conf if "=" not in item]
    if bad:
        ap.error(f"--conf expects KEY=VALUE, got {bad[0]!r}")
    try:
        conf = dict(item.split("=", 1) for item in args.conf)
        config = MinerConfig(
            input_kind=args.kind,
            window=args.window,
            sentences=args.sentences,
            llr_threshold=args.llr_threshold,
            min_pair_count=args.min_pair_count,
            min_word_count=args.min_word_count,
            exclude_top_k=args.exclude_top_k,
            max_word_ratio=args.max_word_ratio,
            positive_only=not args.keep_negative,
            infeasible=args.infeasible,
            check_content=not args.no_content_check,
            spark=SparkSettings(
                master=args.master, shuffle_partitions=args.shuffle_partitions, conf=conf
            ),
        )
        report = mine_cooccurrence(args.inputs, args.out, config, engine="spark")
    except (TaiwaError, ValidationError) as exc:
        ap.exit(2, f"error: {exc}\n")
    sys.stdout.write(dumps(report.model_dump(mode="json"), indent=2) + "\n")


if __name__ == "__main__":
    main()
