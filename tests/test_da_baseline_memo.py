"""The char-n-gram baseline kept in the cache directory (annotators/da_baseline_memo.py): the
stored classifier is the fitted one exactly, any input of the fit is a new key, concurrent
callers fit once, and a cache that cannot be written only costs the fit."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from taiwa.annotators.da_classifier import model as dac
from taiwa.annotators.da_classifier.baseline import fit_key, memo_fit


@pytest.fixture(scope="module")
def small() -> tuple[list[dac.Example], list[str]]:
    examples, _ = dac.load_examples()
    return examples[::10], list(dac.taxonomy_acts())


def _fitter(small: tuple[list[dac.Example], list[str]], calls: list[int]):  # type: ignore[no-untyped-def]
    def fit() -> dac.DAClassifier:
        calls.append(1)
        time.sleep(0.2)  # long enough for a second caller to arrive while this one fits
        model, _ = dac.fit(small[0], small[1], dac.char_ngram_settings(), l2=1e-4)
        return model

    return fit


def test_stored_classifier_is_the_fitted_one(
    tmp_path: Path, small: tuple[list[dac.Example], list[str]]
) -> None:
    calls: list[int] = []
    key = fit_key(*small, {"l2": 1e-4})
    fitted = memo_fit(tmp_path, key, _fitter(small, calls))
    again = memo_fit(tmp_path, key, _fitter(small, calls))
    assert len(calls) == 1 and (tmp_path / "taggers" / f"{key}.npz").is_file()
    assert again.acts == fitted.acts and again.name == fitted.name
    assert again.featurizer.settings == fitted.featurizer.settings
    assert np.array_equal(again.model.weights, fitted.model.weights)  # float64, not float32
    assert np.array_equal(again.featurizer.idf_reply, fitted.featurizer.idf_reply)
    contexts, replies = [e.context for e in small[0]], [e.reply for e in small[0]]
    assert np.array_equal(again.proba(contexts, replies), fitted.proba(contexts, replies))


def test_every_input_of_the_fit_is_in_the_key(
    small: tuple[list[dac.Example], list[str]],
) -> None:
    examples, acts = small
    base = fit_key(examples, acts, {"l2": 1e-4})
    assert fit_key(examples, acts, {"l2": 1e-4}) == base
    changed = [*examples[:-1], dac.Example(**{**examples[-1].__dict__, "act": acts[0]})]
    if changed[-1].act == examples[-1].act:
        changed[-1] = dac.Example(**{**examples[-1].__dict__, "act": acts[1]})
    others = {
        fit_key(examples[:-1], acts, {"l2": 1e-4}),
        fit_key(changed, acts, {"l2": 1e-4}),
        fit_key(examples, acts[::-1], {"l2": 1e-4}),
        fit_key(examples, acts, {"l2": 1e-5}),
    }
    assert base not in others and len(others) == 4


def test_concurrent_callers_fit_once(
    tmp_path: Path, small: tuple[list[dac.Example], list[str]]
) -> None:
    calls: list[int] = []
    key = fit_key(*small, {"l2": 1e-4})
    out: list[dac.DAClassifier] = []
    threads = [
        threading.Thread(target=lambda: out.append(memo_fit(tmp_path, key, _fitter(small, calls))))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(out) == 3
    assert all(np.array_equal(o.model.weights, out[0].model.weights) for o in out)


def test_no_cache_or_an_unwritable_one_only_fits(
    tmp_path: Path, small: tuple[list[dac.Example], list[str]]
) -> None:
    calls: list[int] = []
    key = fit_key(*small, {"l2": 1e-4})
    memo_fit(None, key, _fitter(small, calls))
    blocked = tmp_path / "file"
    blocked.write_text("not a directory", "utf-8")
    memo_fit(blocked, key, _fitter(small, calls))
    assert len(calls) == 2
