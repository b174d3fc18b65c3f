"""Built-in and custom taxonomies (seed 000 App. A.2, seed 002 Table 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.taxonomies import load_taxonomy


def test_builtins() -> None:
    a7 = load_taxonomy("assistant7")
    assert a7.names == [
        "Question",
        "Check-Question",
        "Answer",
        "Inform",
        "Request",
        "Suggestion",
        "Commissive",
    ]
    c11 = load_taxonomy("chitchat11")
    assert len(c11.names) == 11 and c11.names[0] == "あいさつ" and c11.names[-1] == "その他"
    assert {a.group for a in c11.acts if a.group} == {"Inform", "Question", "Directive"}


def test_aliases() -> None:
    a7 = load_taxonomy("assistant7")
    assert a7.canonical("確認質問") == "Check-Question"
    assert a7.canonical("check-question") == "Check-Question"
    assert a7.canonical("Greeting") is None
    assert load_taxonomy("chitchat11").canonical("Opinion") == "意見"


def test_custom_yaml(tmp_path: Path) -> None:
    p = tmp_path / "t.yaml"
    p.write_text(
        "name: mini\nacts:\n  - {name: Ask, ja: 質問, en: Ask, definition: 尋ねる}\n"
        "  - {name: Tell, ja: 伝達, en: Tell, definition: 伝える}\n",
        encoding="utf-8",
    )
    assert load_taxonomy(p).names == ["Ask", "Tell"]


def test_bad_yaml(tmp_path: Path) -> None:
    p = tmp_path / "t.yaml"
    p.write_text("name: x\nacts:\n  - {name: A, ja: a}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"acts\[0\]\.en"):
        load_taxonomy(p)
    with pytest.raises(InputError, match="built-in taxonomy"):
        load_taxonomy(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("name: x\nacts:\n  - name: A\n    ja: あ\n".encode("utf-16"), "UTF-8"),
        (b"name: x\nacts:\n  - {name: A, ja: \xff, en: A, definition: d}\n", "UTF-8"),
        (b"name: x\nacts:\n  - {1: A, ja: a, en: A, definition: d}\n", "string keys"),
        (b"", "got an empty file"),
        (b"- a\n- b\n", "got list"),
        (b"name: x\nacts: &a [*a]\n", "aliases"),
        (b"name: ' '\nacts:\n  - {name: A, ja: a, en: A, definition: d}\n", "non-blank"),
    ],
)
def test_bad_taxonomy_files(tmp_path: Path, data: bytes, message: str) -> None:
    p = tmp_path / "t.yaml"
    p.write_bytes(data)
    with pytest.raises(InputError, match=message) as info:
        load_taxonomy(p)
    assert str(info.value).startswith(str(p))


def test_blank_taxonomy_name_and_directory(tmp_path: Path) -> None:
    with pytest.raises(TaiwaError, match="got ''"):
        load_taxonomy("")
    with pytest.raises(InputError, match="a directory"):
        load_taxonomy(tmp_path)
