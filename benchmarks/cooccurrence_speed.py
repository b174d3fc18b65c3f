"""Co-occurrence mining (seed 003 §2.2): DuckDB vs Spark local vs a plain Counter, side by side.

    python benchmarks/cooccurrence_speed.py [--mb 50] [--seed 0] [--duckdb-memory 512MB]

1. Generates two deterministic ~MB-sized Japanese corpora (sentences of 2-kanji compounds drawn
   from the JIS level-1 kanji with Zipf frequencies, topic clusters for real associations,
   joined by particles) in a temporary directory.
2. Tokenises them once with taiwa's content words (fugashi, all cores) into a content-word
   file shared by every miner, so the comparison is about counting and aggregation, not
   about tokenising (the tokenising throughput is printed too).
3. Mines corpus A with the DuckDB engine, the Spark engine (``local[*]``) and a plain-Python
   ``collections.Counter`` baseline; then corpus A+B (twice the size) with DuckDB and Counter
   to show DuckDB's memory staying flat (bounded by ``memory_limit``) while Counter's grows.
   Each miner runs in its own subprocess; its peak RSS is the largest sum of RSS over the
   process tree (Spark: Python driver + JVM + Python workers), sampled every 50 ms from /proc.
4. Checks that all tables are identical (same rows and g, λ within 1e-9) and prints wall time
   (whole process: exec to exit of the miner's subprocess), CPU seconds (user + system of the
   process tree: on a loaded machine the wall ratio drifts with the load, the CPU figure does
   not), content tokens per second and peak RSS, with ratios against the Counter baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from itertools import accumulate, combinations
from multiprocessing import get_context
from pathlib import Path
from typing import Any

PARTICLES = ["が", "を", "に", "で", "と", "の", "は", "も", "から", "まで"]
ENDINGS = ["を見た。", "について話した。", "が好きだ。", "に行った。", "を読んだ。", "を調べた。"]


# ---------------------------------------------------------------------------- corpus


def level1_kanji() -> list[str]:
    """The 2,965 JIS level-1 kanji (EUC-JP rows 16-47), the common ones, in reading order."""
    out = []
    for b1 in range(0xB0, 0xD0):
        for b2 in range(0xA1, 0xFF):
            try:
                out.append(bytes([b1, b2]).decode("euc_jp"))
            except UnicodeDecodeError:
                continue
    return out


def write_corpus(path: Path, megabytes: float, seed: int) -> int:
    """About ``megabytes`` MB of sentences; returns the number of lines."""
    rng = random.Random(seed)
    kanji = level1_kanji()
    vocab = list(dict.fromkeys(rng.choice(kanji) + rng.choice(kanji) for _ in range(40_000)))
    weights = list(accumulate(1.0 / (i + 1) for i in range(len(vocab))))
    topics = [rng.sample(vocab[:15_000], 6) for _ in range(3_000)]
    topic_weights = list(accumulate(1.0 / (i + 1) ** 0.8 for i in range(len(topics))))
    limit, size, lines = int(megabytes * 1_000_000), 0, 0
    with path.open("w", encoding="utf-8") as fh:
        while size < limit:
            batch = []
            for _ in range(10_000):
                topic = rng.choices(topics, cum_weights=topic_weights)[0]
                words = rng.sample(topic, 2)
                words += rng.choices(vocab, cum_weights=weights, k=rng.randint(1, 4))
                rng.shuffle(words)
                text = "".join(w + rng.choice(PARTICLES) for w in words[:-1])
                batch.append(text + words[-1] + rng.choice(ENDINGS) + "\n")
            chunk = "".join(batch)
            fh.write(chunk)
            size += len(chunk.encode("utf-8"))
            lines += len(batch)
    return lines


def _tokenise(lines: list[str]) -> str:
    from taiwa.text import content_words

    return "".join(" ".join(content_words(line)) + "\n" for line in lines)


def tokenise(src: Path, dst: Path, mode: str = "w") -> tuple[int, float]:
    """Content words of every line of ``src`` into ``dst``; returns (chars, seconds)."""
    started, chars = time.perf_counter(), 0
    text = src.read_text(encoding="utf-8").splitlines()
    chars = sum(len(t) for t in text)
    chunks = [text[i : i + 5_000] for i in range(0, len(text), 5_000)]
    with get_context("spawn").Pool(os.cpu_count()) as pool, dst.open(mode, encoding="utf-8") as fh:
        for block in pool.imap(_tokenise, chunks):
            fh.write(block)
    return chars, time.perf_counter() - started


# ---------------------------------------------------------------------------- miners


def mine_with_counter(tokens: Path, out: Path) -> dict[str, Any]:
    """The plain-Python baseline: two Counters, :func:`llr` per pair, the same filters."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from taiwa.resources import MinerConfig, llr

    config = MinerConfig(input_kind="tokens")
    h: Counter[str] = Counter()
    g: Counter[tuple[str, str]] = Counter()
    n = 0
    with tokens.open(encoding="utf-8") as fh:
        for line in fh:
            words = sorted(set(line.split()))
            n += 1
            h.update(words)
            if len(words) > 1:
                g.update(combinations(words, 2))
    kept = []
    for (v, w), count in g.items():
        if count < config.min_pair_count or count * n <= h[v] * h[w]:
            continue
        value = llr(count, h[v], h[w], n)
        if value >= config.llr_threshold:
            kept.append((v, w, count, value))
    kept.sort()
    cols = list(zip(*kept, strict=True)) if kept else [[], [], [], []]
    table = pa.table(
        {
            "w1": pa.array(cols[0], pa.string()),
            "w2": pa.array(cols[1], pa.string()),
            "g": pa.array(cols[2], pa.int64()),
            "llr": pa.array(cols[3], pa.float64()),
        }
    )
    pq.write_table(table, out, compression="zstd")
    return {"pairs_out": len(kept), "F": n}


def run_engine(engine: str, tokens: Path, out: Path, memory: str) -> dict[str, Any]:
    from taiwa.resources import DuckDBSettings, MinerConfig, mine_cooccurrence

    started = time.perf_counter()
    if engine == "counter":
        info = mine_with_counter(tokens, out)
    else:
        duck = DuckDBSettings(memory_limit=memory, workers=os.cpu_count() or 1)
        config = MinerConfig(input_kind="tokens", duckdb=duck)
        report = mine_cooccurrence(
            tokens, out, config, engine="spark" if engine == "spark" else "duckdb"
        )
        info = {"pairs_out": report.counts.pairs_out, "F": report.F}
    info["mine_seconds"] = time.perf_counter() - started
    return info


def _tree_rss(root: int) -> int:
    """Sum of RSS (bytes) of ``root`` and its descendants, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm", encoding="ascii") as fh:
                rss[int(entry)] = int(fh.read().split()[1]) * page
            parents[int(entry)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(rss.get(pid, 0) for pid in tree)


def measure(engine: str, tokens: Path, out: Path, memory: str) -> dict[str, Any]:
    """Run one miner in a subprocess; wall time, CPU time, its own timing and the peak tree
    RSS."""
    cmd = [sys.executable, __file__, "--run", engine, "--tokens", str(tokens), "--out", str(out)]
    cmd += ["--duckdb-memory", memory]
    started = time.perf_counter()
    cpu_before = _children_cpu()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - started
    cpu = _children_cpu() - cpu_before
    if proc.returncode:
        raise SystemExit(f"{engine} failed with exit code {proc.returncode}")
    info: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    info.update(engine=engine, wall=wall, cpu=cpu, peak_rss=peak)
    return info


def _children_cpu() -> float:
    """User + system seconds of the finished (waited-for) descendants of this process."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def same_table(a: Path, b: Path) -> bool:
    import pyarrow.parquet as pq

    ra, rb = pq.read_table(a).to_pylist(), pq.read_table(b).to_pylist()
    if [(r["w1"], r["w2"], r["g"]) for r in ra] != [(r["w1"], r["w2"], r["g"]) for r in rb]:
        return False
    return all(
        abs(x["llr"] - y["llr"]) <= 1e-9 * abs(y["llr"]) for x, y in zip(ra, rb, strict=True)
    )


# ---------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mb", type=float, default=50.0, help="size of corpus A in MB (default 50)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--duckdb-memory", default="512MB", help="DuckDB memory_limit")
    ap.add_argument("--skip-spark", action="store_true")
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--tokens", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:  # child mode: one miner, JSON on stdout
        info = run_engine(args.run, args.tokens, args.out, args.duckdb_memory)
        sys.stdout.write(json.dumps(info) + "\n")
        return

    with tempfile.TemporaryDirectory(prefix="taiwa-cooc-bench-") as tmp:
        work = Path(tmp)
        text_a, text_b = work / "a.txt", work / "b.txt"
        lines_a = write_corpus(text_a, args.mb, args.seed)
        write_corpus(text_b, args.mb, args.seed + 1)
        tok_a, tok_ab = work / "a.tokens", work / "ab.tokens"
        chars, seconds = tokenise(text_a, tok_a)
        tok_ab.write_bytes(tok_a.read_bytes())
        tokenise(text_b, tok_ab, mode="a")
        n_tokens = {
            p: sum(len(line.split()) for line in p.open(encoding="utf-8")) for p in (tok_a, tok_ab)
        }
        mb_a = text_a.stat().st_size / 1e6
        print(f"corpus A: {mb_a:.1f} MB, {lines_a:,} sentences, {n_tokens[tok_a]:,} content tokens")
        print(
            f"tokenising (fugashi, {os.cpu_count()} processes, done once, shared): "
            f"{chars / seconds:,.0f} chars/s, {seconds:.1f} s"
        )

        runs = [("counter", tok_a), ("duckdb", tok_a)]
        runs += [] if args.skip_spark else [("spark", tok_a)]
        runs += [("duckdb", tok_ab), ("counter", tok_ab)]
        results = []
        for engine, tokens in runs:
            out = work / f"{engine}-{tokens.stem}.parquet"
            info = measure(engine, tokens, out, args.duckdb_memory)
            info.update(tokens=n_tokens[tokens], corpus="A" if tokens == tok_a else "A+B", out=out)
            results.append(info)

        base = {r["corpus"]: r for r in results if r["engine"] == "counter"}
        for r in results:
            if r["engine"] != "counter" and not same_table(r["out"], base[r["corpus"]]["out"]):
                raise SystemExit(f"{r['engine']} on {r['corpus']}: table differs from Counter's")
        print(
            f"all tables identical per corpus ({base['A']['pairs_out']:,} pairs on A, "
            f"{base['A+B']['pairs_out']:,} on A+B); DuckDB memory_limit {args.duckdb_memory}"
        )
        head = f"{'miner':18s} {'corpus':6s} {'wall s':>8s} {'CPU s':>7s} {'mine s':>8s}"
        head += f" {'tokens/s':>11s} {'peak RSS MB':>12s} {'time/Counter':>13s}"
        print(head + f" {'RSS/Counter':>12s}")
        names = {"counter": "Counter (Python)", "duckdb": "DuckDB", "spark": "Spark local[*]"}
        for r in results:
            b = base[r["corpus"]]
            print(
                f"{names[r['engine']]:18s} {r['corpus']:6s} {r['wall']:8.1f} {r['cpu']:7.1f} "
                f"{r['mine_seconds']:8.1f} {r['tokens'] / r['wall']:11,.0f} "
                f"{r['peak_rss'] / 1e6:12,.0f} {r['wall'] / b['wall']:12.2f}x "
                f"{r['peak_rss'] / b['peak_rss']:11.2f}x"
            )
        duck = {r["corpus"]: r for r in results if r["engine"] == "duckdb"}
        duck_growth = duck["A+B"]["peak_rss"] / duck["A"]["peak_rss"]
        counter_growth = base["A+B"]["peak_rss"] / base["A"]["peak_rss"]
        print(
            f"doubling the corpus: DuckDB peak RSS x{duck_growth:.2f}, "
            f"Counter peak RSS x{counter_growth:.2f}"
        )
        speedup = {c: base[c]["wall"] / duck[c]["wall"] for c in duck}
        cpu_ratio = {c: base[c]["cpu"] / duck[c]["cpu"] for c in duck}
        peak_mb = max(r["peak_rss"] for r in duck.values()) / 1e6
        print(
            f"DuckDB speed-up over Counter (whole process, wall): {speedup['A']:.1f}x on A, "
            f"{speedup['A+B']:.1f}x on A+B (target >= 10x); in CPU seconds "
            f"{cpu_ratio['A']:.1f}x and {cpu_ratio['A+B']:.1f}x; load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; DuckDB peak RSS "
            f"{peak_mb:,.0f} MB (target <= 2,000 MB, flat when the corpus doubles)"
        )


if __name__ == "__main__":
    main()
