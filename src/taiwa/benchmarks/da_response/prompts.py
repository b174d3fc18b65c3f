"""Seed 000 prompts: dataset generation (App. A) and response generation (App. B), verbatim.

One repair of the seed's text: the few-shot reply in App. A.3 reads
「最高気温は度です。週末の天気もお調べしますか?"25"」 in the seed, a PDF extraction slip;
it is restored here as 「最高気温は25度です。週末の天気もお調べしますか?」.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taiwa.benchmarks.da_response.dataset import DAResponseItem
    from taiwa.models.types import ChatMessage

SYSTEM_INSTRUCTION = """あなたはスマートフォン/スマートスピーカー向けの音声アシスタント対話データ（単一ターン）を生成します。

ルール:

- 1) 「ユーザーの発話 (input)」は1つ、「アシスタントの発話 (output)」も1つの単一ターンとする。
- 2) アシスタントの発話は単一メッセージ内で最適行動をとる。
- 3) 出力は JSON のみとし、マークダウンやコメントは禁止する。
- 4) 言語は日本語 (ja-JP) とし、簡潔で自然な表現を用いる。
- 5) 実運用上、文脈として自明な情報は適切に仮定する。

例:

- ・「今日の天気は？」と聞かれた場合、端末の位置情報などからユーザーが東京にしていると仮定してよい。
- ・「迂回ルートを検索して」と言われた場合、すでにナビゲーションが開始されていると仮定する。
- ・「3分タイマーかけて」と言われた場合、料理中などの自然な状況を仮定してよい。

- 6) JSON は以下の4キーを必須とする:

- scenario_context
- input
- output
- output_dialogue_acts

- 7) scenario_context.background には、対話が行われている状況（ユーザーの状態、端末の状態、暗黙の前提）を1〜3文程度で記述する。

- 8) output_dialogue_acts.steps の各要素は、act, importance ([0,1]), rationale (任意) を必ず含める。"""  # noqa: E501

TAXONOMY = """対話行為の分類:

- Question (質問): 情報を求める発話
- Check-Question (確認質問): 想定した答えの確認を求める発話
- Answer (回答): 質問への直接的な返答
- Inform (情報提供): 回答以外の補足情報や通知
- Request (依頼): 相手の行動を求める発話
- Suggestion (提案): 利益につながる提案
- Commissive (約束・承諾): 宣言・受諾・拒絶

importance (重要度):

- 各 step に importance を付与する。
- importance は [0,1) の小数とし、steps 全体の合計は 1 とする。
- 返答の中心となる行動ほど高く、補助的な行動ほど低く設定する。"""

FEW_SHOT = """{
  "scenario_context": {
    "background": "ユーザーは自宅のリビングにいて、スマホの音声アシスタントに『今日の東京の天気は?』と尋ねている。位置情報からユーザーが東京都内にいることは端末が把握している。"
  },
  "input": {
    "role": "USER",
    "text": "今日の東京の天気は?",
    "locale": "ja-JP"
  },
  "output": {
    "role": "ASSISTANT",
    "text": "東京は本日、晴れのち曇り、最高気温は25度です。週末の天気もお調べしますか?"
  },
  "output_dialogue_acts": {
    "steps": [
      {
        "act": "Answer",
        "importance": 0.78,
        "rationale": "本日の天気を簡潔に伝える。"
      },
      {
        "act": "Suggestion",
        "importance": 0.22,
        "rationale": "週末予報を提案し付加価値を与える。"
      }
    ]
  }
}"""  # noqa: E501

TASK = """タスク:

- 上記スキーマに厳密に従い、単一ターンのサンプルを1件生成する。
- ユーザー発話はスマートフォン/スマートスピーカーの音声アシスタント利用として自然であること。
- アシスタント応答は、Dialogue Act 分類に基づく最適行動を1メッセージで表現すること。

指示:

{USER_INSTRUCTION}

出力は JSON のみとし、

必ず scenario_context, input, output, output_dialogue_acts の各キーを含めること。"""

RESPONSE_SYSTEM = "あなたは親切な日本語音声対話アシスタントです。"
"""App. B.1: the system prompt of the model under test."""

RESPONSE_USER = (
    "この音声の内容を理解し、音声対話として適切な返答をしてください。"
    "出力には返答文以外の一切のテキストを含めず、返答文のみを返してください。"
)
"""App. B.2: the user prompt given with the input audio."""


def generation_prompt(instruction: str) -> tuple[str, str]:
    """(system, user) for one dataset-generation call: App. A.1 as system; A.2–A.4 as user."""
    user = f"{TAXONOMY}\n\n例:\n{FEW_SHOT}\n\n{TASK.replace('{USER_INSTRUCTION}', instruction)}"
    return SYSTEM_INSTRUCTION, user


ANNOTATION_TASK = """タスク:

- 次の「アシスタントの発話」を先頭から順に機能的な構成要素に分解し、各要素に対話行為 (act) と重要度 (importance) を付与する。
- 上記の対話行為の分類と重要度の規則に厳密に従うこと。
- 出力は {{"steps": [{{"act": ..., "importance": ..., "rationale": ...}}, ...]}} の JSON のみとする。

ユーザーの発話:
{INPUT}

アシスタントの発話:
{OUTPUT}"""  # noqa: E501
"""Annotation of a reply (seed 000 §4.1: the dataset's LLM annotates replies with the same
taxonomy, definitions and schema). The wording of this task block is ours; the taxonomy and
the few-shot example are App. A.2 and A.3 verbatim."""


TABLE2_EXAMPLES: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = (
    (
        "はい、10分のタイマーをセットしました。名前を付けますか？(例:「パスタ」)時間になったらお知らせします。",
        (("Commissive", 0.60), ("Question", 0.25), ("Inform", 0.15)),
    ),
    (
        "それでは、どんな内容の伝言を残しますか？お相手の名前や伝言したい内容を教えてください。",
        (("Request", 0.70), ("Question", 0.30)),
    ),
    (
        "はい、12月25日にクリスマスパーティーの予定ですね。カレンダーに登録しておきました。"
        "時間は後からでも変更できますよ。",
        (("Check-Question", 0.30), ("Inform", 0.50), ("Inform", 0.20)),
    ),
    (
        "現在、設定されているリマインダーは3件です。明日の午前9時には「ゴミ出し」、来週月曜日の"
        "午後3時には「歯医者予約」があります。残りのリマインダーも確認しますか？",
        (("Inform", 0.65), ("Question", 0.35)),
    ),
)
"""Seed 000 Table 2's annotated replies, verbatim (IDs 1 and 4: the reference reply; IDs 2 and
3: the generated reply), as further few-shot examples: with App. A.3 they show all seven acts
(issue 16: the demo LLM never wrote Commissive with A.3 alone)."""


def few_shot_block() -> str:
    """App. A.3 and the Table 2 examples, each as a reply and its ``{"steps": ...}``."""
    example = json.loads(FEW_SHOT)
    shots = [(example["output"]["text"], example["output_dialogue_acts"])]
    for text, steps in TABLE2_EXAMPLES:
        shots.append((text, {"steps": [{"act": a, "importance": w} for a, w in steps]}))
    return "\n\n".join(
        f"例{k} (発話「{text}」の分解):\n" + json.dumps(acts, ensure_ascii=False)
        for k, (text, acts) in enumerate(shots, 1)
    )


def annotation_prompt(user_text: str, reply: str) -> tuple[str, str]:
    """(system, user) for annotating one reply with a DA sequence: App. A.2's taxonomy with its
    definitions and importance rule, the few-shot examples of :func:`few_shot_block`, then
    the task."""
    task = ANNOTATION_TASK.format(INPUT=user_text, OUTPUT=reply)
    system = "あなたは音声アシスタントの応答を対話行為の系列に分解するアノテーターです。"
    return system, f"{TAXONOMY}\n\n{few_shot_block()}\n\n{task}"


def messages(item: DAResponseItem, mode: str = "text") -> list[ChatMessage]:
    """App. B: the system prompt, then the utterance (its audio, or its text in text mode)
    followed by the App. B user prompt."""
    return heard_messages(item.input.text, item.audio, mode)


def heard_messages(text: str, audio: str | None, mode: str = "text") -> list[ChatMessage]:
    """:func:`messages` of an utterance's ``text`` (and its ``audio`` file in audio mode)."""
    from taiwa.models.types import ChatMessage, ContentPart

    heard = (
        ContentPart(type="audio", audio_path=audio)
        if mode == "audio"
        else ContentPart(type="text", text=text)
    )
    return [
        ChatMessage(role="system", content=RESPONSE_SYSTEM),
        ChatMessage(role="user", content=[heard, ContentPart(type="text", text=RESPONSE_USER)]),
    ]
