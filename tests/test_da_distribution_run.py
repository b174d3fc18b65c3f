"""The da-distribution method end to end: the Table 2 contrast on the bundled test set (parrot
DAE = DAMI = 0 with a high Distinct, the human replies varied and context-dependent), the
summary recomputed from the written tags, crowd votes as the tagger, the vectorised estimates
against plain definitions, and one-line errors for bad label files."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cli import taiwa_main
from taiwa.benchmarks import get_method
from taiwa.benchmarks.da_distribution.dataset import iter_contexts
from taiwa.benchmarks.da_distribution.tables import tables
from taiwa.core.samples import sample_path
from taiwa.core.taxonomies import load_taxonomy
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.metrics.da_bootstrap import act_distribution, dami_jackknife, distinct_estimate
from taiwa.metrics.da_distribution import dae, dami, distinct, transition_lift
from taiwa.metrics.stats import bootstrap_ci
from taiwa.text.tokenizer import default_tokenizer

ECHO = "うなずき・おうむ返し"
CHITCHAT11 = load_taxonomy("chitchat11")


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def table2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled test set answered by parrot, ELIZA and the human replies (CLI, as a user)."""
    out = tmp_path_factory.mktemp("dd") / "run"
    r = taiwa_main(
        "run", "da-distribution", "-m", "builtin:parrot", "--models", "builtin:eliza,human",
        "--out", str(out), "--no-cache", "-q", "-o", "consistency_repetitions=500",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "seed 002 Table 2" in r.stdout
    return out


def test_the_bundled_test_set_is_valid_and_covers_every_act() -> None:
    items = list(iter_contexts(sample_path("da_distribution/contexts.jsonl"), CHITCHAT11))
    assert len(items) >= 200
    for field in ("prev_act", "reply_act"):
        counts = {a: sum(getattr(it, field) == a for it in items) for a in CHITCHAT11.names}
        assert min(counts.values()) >= 8, (field, counts)
    assert sum(bool(it.history) for it in items) >= 50


def test_parrot_and_human_contrast_as_in_table_2(table2: Path) -> None:
    s = json.loads((table2 / "summary.json").read_text("utf-8"))
    parrot, eliza, human = (s["systems"][k] for k in ("builtin:parrot", "builtin:eliza", "human"))
    # Table 2: おうむ返し 0 / 0 / 0.151, Human 2.48 / 0.237 / 0.160
    assert parrot["dae"]["value"] == 0.0 and parrot["dami"]["value"] == 0.0
    assert parrot["acts"][ECHO]["count"] == parrot["tagged"] == s["n_samples"]
    assert parrot["distinct1"]["value"] > 0.3
    assert human["dae"]["value"] > 2.0 and human["dami"]["value"] > 0.2
    assert human["dae"]["value"] > eliza["dae"]["value"] > parrot["dae"]["value"]
    assert human["distinct1"]["value"] > 2 * eliza["distinct1"]["value"]
    for block in (parrot, eliza, human):
        for key in ("dae", "dami", "distinct1", "distinct2"):
            est = block[key]
            assert est["n"] == s["n_samples"]
            assert est["ci_low"] <= est["value"] <= est["ci_high"], (key, est)
    assert s["across"]["ranking"] == ["human", "builtin:eliza", "builtin:parrot"]
    assert s["across"]["tagger"]["kind"] == "embedded classifier"
    assert 0.4 < s["across"]["tagger_vs_human_labels"]["value"] <= 1.0
    assert s["across"]["prev_acts"] == {"labels": s["n_samples"]}


def test_summary_is_recomputed_from_the_written_files(table2: Path) -> None:
    s = json.loads((table2 / "summary.json").read_text("utf-8"))
    tags = _read(table2 / "tags.jsonl")
    responses = _read(table2 / "responses.jsonl")
    for system, block in s["systems"].items():
        acts = [t["acts"][system] for t in tags]
        pairs = [(t["prev_act"], t["acts"][system]) for t in tags]
        assert block["dae"]["value"] == pytest.approx(dae(acts), abs=1e-9)
        assert block["dami"]["value"] == pytest.approx(dami(pairs), abs=1e-9)
        texts = [r["text"] for r in responses if r["system"] == system]
        assert block["distinct2"]["value"] == pytest.approx(distinct(texts, 2), abs=1e-12)
        lift = transition_lift(pairs, CHITCHAT11.names).lift
        got = np.array(block["transitions"]["lift"], dtype=float)
        assert np.allclose(got, lift, equal_nan=True, atol=1e-6)
        assert sum(a["count"] for a in block["acts"].values()) == len(tags)


def test_consistency_curve_is_plotted(table2: Path) -> None:
    s = json.loads((table2 / "summary.json").read_text("utf-8"))
    pairs = s["across"]["consistency"]["pairs"]
    assert list(pairs) == ["human vs builtin:eliza", "builtin:eliza vs builtin:parrot"]
    for p in pairs.values():
        sizes = [q["batch_size"] for q in p["points"]]
        assert sizes == [60, 120, 180]  # 240 contexts: quarters, the seed's sizes do not fit
        assert all(0.5 <= q["agreement"]["value"] <= 1 for q in p["points"])
    assert any("used [60, 120, 180] instead" in n for n in s["notes"])
    svg = (table2 / "consistency.svg").read_text("utf-8")
    assert svg.startswith("<?xml") and "<path" in svg and "batch size" in svg
    assert s["files"] == ["consistency.svg", "transitions.svg"]
    heat = (table2 / "transitions.svg").read_text("utf-8")
    assert heat.count("<image") == 3 or heat.count("clip-path") >= 3  # one map per system
    assert "うなずき・おうむ返し" in heat and "builtin:eliza" in heat


def test_human_acts_from_the_labels(tmp_path: Path) -> None:
    cfg = RunConfig(
        method="da-distribution",
        models=["human"],
        options={"human_acts": "labels"},
        out=tmp_path / "run",
        no_cache=True,
    )
    res = run(cfg, get_method(cfg.method), show_progress=False)
    items = list(iter_contexts(sample_path("da_distribution/contexts.jsonl"), CHITCHAT11))
    want = dae(it.reply_act for it in items)
    assert res.summary["systems"]["human"]["dae"]["value"] == pytest.approx(want)
    assert "consistency" not in res.summary["across"]  # one system: nothing to order


def _contexts(path: Path, n: int = 6) -> Path:
    rows = [
        {"id": f"c{k}", "context": f"今日は{k}時に起きたよ", "prev_act": "身の回りに関する事実"}
        for k in range(n)
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_crowd_votes_as_the_tagger(tmp_path: Path) -> None:
    data = _contexts(tmp_path / "ctx.jsonl", 3)
    votes = [
        # c0: the parrot's echo, 3 of 5 annotators
        *({"id": "c0/builtin:parrot", "annotator": f"w{k}", "acts": [ECHO]} for k in range(3)),
        {"id": "c0/builtin:parrot", "annotator": "w3", "acts": ["リアクション"]},
        # c1: a tally; 意見 wins
        {"id": "c1/builtin:parrot", "votes": {"意見": 3, "質問": 2}},
        # c2: no act reaches 2 votes: untagged, counted
        {"id": "c2/builtin:parrot", "votes": {"意見": 1, "質問": 1}},
    ]
    vf = tmp_path / "votes.jsonl"
    vf.write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in votes), "utf-8")
    out = tmp_path / "run"
    r = taiwa_main(
        "run", "da-distribution", "-m", "builtin:parrot", "--tagger", f"votes:{vf}",
        "--data", str(data), "--out", str(out), "--no-cache", "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text("utf-8"))
    block = s["systems"]["builtin:parrot"]
    assert block["tagged"] == 2
    assert block["untagged"] == {"no act reached 2 votes": 1}
    assert block["acts"][ECHO]["count"] == 1 and block["acts"]["意見"]["count"] == 1
    assert s["across"]["tagger"]["kind"].startswith("crowd votes")
    assert any("1 repl(ies) untagged" in n for n in s["notes"])
    tags = _read(out / "tags.jsonl")
    assert tags[2]["untagged"] == {"builtin:parrot": "no act reached 2 votes"}


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"id": "c0/builtin:parrot", "annotator": "w1", "acts": ["ほめる"]}', "acts"),
        ('{"id": "c0/builtin:parrot", "annotator": "w1", "acts": []}', "acts"),
        ('{"id": "c0/builtin:parrot", "annotator": "w1", "acts": [', None),
    ],
)
def test_a_bad_votes_file_is_one_line(tmp_path: Path, line: str, field: str | None) -> None:
    data = _contexts(tmp_path / "ctx.jsonl", 2)
    vf = tmp_path / "votes.jsonl"
    ok = '{"id": "c1/builtin:parrot", "votes": {"意見": 2}}'
    vf.write_text(ok + "\n" + line + "\n", "utf-8")
    r = taiwa_main(
        "run", "da-distribution", "-m", "builtin:parrot", "--tagger", f"votes:{vf}",
        "--data", str(data), "--out", str(tmp_path / "run"), "--no-cache", "-q",
    )  # fmt: skip
    assert r.returncode == 2
    lines = [x for x in r.stderr.strip().splitlines() if x.strip()]
    assert len(lines) == 1, r.stderr
    assert f"{vf}:2" in lines[0]
    if field is not None:
        assert field in lines[0]
    assert not (tmp_path / "run" / "responses.jsonl").exists()  # nothing ran


def test_a_bad_act_in_the_test_set_is_one_line(tmp_path: Path) -> None:
    data = _contexts(tmp_path / "ctx.jsonl", 3)
    rows = data.read_text("utf-8").splitlines()
    rows[1] = rows[1].replace("身の回りに関する事実", "雑談")
    data.write_text("\n".join(rows) + "\n", "utf-8")
    r = taiwa_main("run", "da-distribution", "-m", "builtin:parrot", "--data", str(data), "-q")
    assert r.returncode == 2
    assert f"{data}:2" in r.stderr and "prev_act" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("tagger", "message"),
    [("no/such/dir", "no such directory"), ("votes:", "names no file")],
)
def test_taggers_that_are_not_taggers(tmp_path: Path, tagger: str, message: str) -> None:
    r = taiwa_main("run", "da-distribution", "-m", "builtin:parrot", "--tagger", tagger, "-q")
    assert r.returncode == 2
    assert message in r.stderr


def test_a_directory_that_is_not_a_trained_tagger(tmp_path: Path) -> None:
    r = taiwa_main(
        "run", "da-distribution", "-m", "builtin:parrot", "--tagger", str(tmp_path), "-q"
    )
    assert r.returncode == 2
    assert "no taiwa_da.json there" in r.stderr


def test_tables_show_replies_as_typed() -> None:
    s = {
        "systems": {
            "[/b] :parrot:": {
                "tagged": 1,
                "n": 1,
                "dae": {"value": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 1},
                "acts": {
                    ECHO: {"count": 1, "share": {"value": 1.0, "ci_low": 1.0, "ci_high": 1.0}}
                },
                "transitions": {
                    "labels": [ECHO],
                    "counts": [[1]],
                    "lift": [[1.0]],
                    "ci_low": [[None]],
                    "ci_high": [[None]],
                },
            }
        },
        "across": {},
    }
    from rich.console import Console

    console = Console(record=True, width=120, emoji=False)
    for t in tables(s):
        console.print(t)
    assert "[/b] :parrot:" in console.export_text()


# -------------------------------------------------------------- estimates vs plain definitions


def _acts(n: int, seed: int) -> tuple[list[str], list[str | None]]:
    rng = random.Random(seed)
    names = CHITCHAT11.names
    acts = [rng.choice(names[:5]) for _ in range(n)]
    prev: list[str | None] = [rng.choice(names) if k % 5 else None for k in range(n)]
    return acts, prev


def test_act_distribution_matches_the_definitions() -> None:
    acts, prev = _acts(400, seed=3)
    d = act_distribution(acts, prev, CHITCHAT11.names, seed=7, n_resamples=300)
    pairs = [(p, a) for p, a in zip(prev, acts, strict=True) if p is not None]
    assert d.dae.value == pytest.approx(dae(acts), abs=1e-12)
    # the same resamples as bootstrap_ci: its DAE interval exactly
    ref = bootstrap_ci(acts, dae, seed=7, n_resamples=300)
    assert (d.dae.low, d.dae.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert d.dami.value == pytest.approx(dami(pairs), abs=1e-12) and d.dami.n == len(pairs)
    assert np.allclose(d.lift, transition_lift(pairs, CHITCHAT11.names).lift, equal_nan=True)
    share = bootstrap_ci([float(a == acts[0]) for a in acts], seed=7, n_resamples=300)
    j = d.labels.index(acts[0])
    assert (d.shares[j].low, d.shares[j].high) == pytest.approx((share.low, share.high))
    finite = np.isfinite(d.lift)
    assert np.all(d.lift_low[finite] <= d.lift_high[finite])


def test_dami_jackknife_is_the_delete_one_jackknife() -> None:
    acts, prev = _acts(90, seed=11)
    pairs = [(p, a) for p, a in zip(prev, acts, strict=True) if p is not None]
    labels = CHITCHAT11.names
    joint = np.zeros((len(labels), len(labels)))
    for p, a in pairs:
        joint[labels.index(p), labels.index(a)] += 1
    est, bias = dami_jackknife(joint)
    loo = np.array([dami(pairs[:i] + pairs[i + 1 :]) for i in range(len(pairs))])
    m = len(pairs)
    se = np.sqrt((m - 1) / m * ((loo - loo.mean()) ** 2).sum())
    assert est.value == pytest.approx(dami(pairs))
    assert est.high - est.value == pytest.approx(1.959963984540054 * se)
    assert bias == pytest.approx((m - 1) * (loo.mean() - dami(pairs)))
    assert bias > 0  # the plug-in overestimates


def test_distinct_estimate_is_the_delete_one_jackknife() -> None:
    tok = default_tokenizer()
    items = list(iter_contexts(sample_path("da_distribution/contexts.jsonl"), CHITCHAT11))[:40]
    texts = [it.reply or "" for it in items]
    tokens = [tok.tokenize(t) for t in texts]
    est = distinct_estimate(tokens, 2)
    assert est.value == pytest.approx(distinct(texts, 2))
    loo = np.array([distinct(texts[:i] + texts[i + 1 :], 2) for i in range(len(texts))])
    se = np.sqrt((len(texts) - 1) / len(texts) * ((loo - loo.mean()) ** 2).sum())
    assert est.high - est.value == pytest.approx(1.959963984540054 * se)


def test_registered_and_listed() -> None:
    m = get_method("da-distribution")
    assert m.seed == "002" and m.roles[0].name == "tagger"
    r = taiwa_main("run", "da-distribution", "--help")
    assert r.returncode == 0 and "consistency_sizes" in r.stdout and "votes:FILE" in r.stdout


def test_the_finer_opinion_taxonomy(tmp_path: Path) -> None:
    """Seed 002 App. A as a run: votes in chitchat16 (opinions by target × polarity); the
    default classifier, trained on chitchat11, is refused for it."""
    data = _contexts(tmp_path / "ctx.jsonl", 2)
    data.write_text(data.read_text("utf-8").replace("身の回りに関する事実", "質問"), "utf-8")
    votes = [
        {"id": "c0/builtin:parrot", "votes": {"意見（対話相手・ポジティブ）": 3}},
        {"id": "c1/builtin:parrot", "votes": {"Opinion/other/negative": 2, "質問": 1}},
    ]
    vf = tmp_path / "votes.jsonl"
    vf.write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in votes), "utf-8")
    common = ["-m", "builtin:parrot", "--data", str(data), "-o", "taxonomy=chitchat16", "-q"]
    r = taiwa_main(
        "run", "da-distribution", *common, "--tagger", f"votes:{vf}", "--out", str(tmp_path / "r")
    )
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "r" / "summary.json").read_text("utf-8"))
    acts = s["systems"]["builtin:parrot"]["acts"]
    assert len(acts) == 16
    assert (
        acts["意見（対話相手・ポジティブ）"]["count"]
        == acts["意見（それ以外・ネガティブ）"]["count"]
        == 1
    )
    assert s["systems"]["builtin:parrot"]["dae"]["value"] == pytest.approx(1.0)
    r = taiwa_main("run", "da-distribution", *common, "--out", str(tmp_path / "r2"))
    assert r.returncode == 2 and "labels chitchat11 acts, not chitchat16" in r.stderr


def test_a_system_with_one_short_reply_is_flagged_not_a_traceback(tmp_path: Path) -> None:
    """Every context answered はい: DAE still varies with the tagger's reading of the contexts
    (the previous act is a feature), so DAE and DAMI carry the identical-replies flag; no
    reply has two tokens, so Distinct-2 is 0 by convention with no interval, flagged, and the
    table prints it as ``[–, –]`` (it used to raise on the missing bounds)."""
    contexts = sample_path("da_distribution/contexts.jsonl")
    ids = [it.id for it in iter_contexts(contexts, CHITCHAT11)][:40]
    replies = tmp_path / "hai.jsonl"
    replies.write_text("".join(json.dumps({"id": i, "text": "はい"}) + "\n" for i in ids))
    out = tmp_path / "run"
    r = taiwa_main(
        "run", "da-distribution", "-m", f"replay:{replies}", "--limit", "40",
        "--out", str(out), "--no-cache", "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "[–, –]" in r.stdout
    table2 = r.stdout.split("seed 002 Table 2")[1].split("act distribution")[0]
    row = next(line for line in table2.splitlines() if "replay:" in line)
    assert row.count("⚑") >= 2  # DAE raw, DAMI raw (and the corrected ones: n=40)
    block = next(iter(json.loads((out / "summary.json").read_text("utf-8"))["systems"].values()))
    on = {f["on"]: f["code"] for f in block["flags"]}
    assert on["dae"] == on["dami"] == "identical-replies"
    assert on["distinct2"] == "nothing-counted"
    assert block["distinct2"]["value"] == 0.0 and block["distinct2"]["ci_low"] is None
    assert block["identical_replies"]["share"] == 1.0


LONG_REPLIES = [
    "そうなんですね。実は私も似たようなことがあって、最初はどうしたらいいのか全然わからなかった"
    "のですが、少しずつ慣れていきました。",
    "いいですね！週末に時間があるなら、近くの公園を散歩してみるのもおすすめです。季節の花が咲いて"
    "いて、気分転換にぴったりだと思います。",
    "なるほど、それは大変でしたね。無理をしすぎると体調を崩してしまうので、今日は早めに休んで、"
    "明日また考えてみてはどうでしょうか。",
    "ありがとうございます。そう言ってもらえるとうれしいです。これからもいろいろな話を聞かせて"
    "もらえたら、もっと楽しくなりそうですね。",
]


def test_replies_longer_than_the_taggers_validation_set_are_flagged(tmp_path: Path) -> None:
    """An LLM-like system answering in paragraphs (50+ characters) is tagged by a classifier
    validated on chat utterances of at most 39 characters: its DAE and DAMI (raw and, through
    the table, corrected) carry the beyond-validation flag; a system of short replies does not."""
    contexts = sample_path("da_distribution/contexts.jsonl")
    ids = [it.id for it in iter_contexts(contexts, CHITCHAT11)][:20]
    long_file, short_file = tmp_path / "long.jsonl", tmp_path / "short.jsonl"
    long_file.write_text(
        "".join(
            json.dumps({"id": i, "text": LONG_REPLIES[k % 4]}, ensure_ascii=False) + "\n"
            for k, i in enumerate(ids)
        ),
        "utf-8",
    )
    short = ["うん、わかる。", "へー、そうなんだ", "いいね！", "それ行ってみたい"]
    short_file.write_text(
        "".join(
            json.dumps({"id": i, "text": short[k % 4]}, ensure_ascii=False) + "\n"
            for k, i in enumerate(ids)
        ),
        "utf-8",
    )
    out = tmp_path / "run"
    r = taiwa_main(
        "run", "da-distribution", "-m", f"replay:{long_file}", "-m", f"replay:{short_file}",
        "--limit", "20", "--out", str(out), "--no-cache", "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    systems = json.loads((out / "summary.json").read_text("utf-8"))["systems"]
    on_long = {(f["on"], f["code"]) for f in systems[f"replay:{long_file}"]["flags"]}
    assert {("dae", "beyond-validation"), ("dami", "beyond-validation")} <= on_long
    on_short = {f["code"] for f in systems[f"replay:{short_file}"].get("flags", ())}
    assert "beyond-validation" not in on_short
    assert "20 of 20 replies are longer than the longest utterance" in " ".join(r.stdout.split())
